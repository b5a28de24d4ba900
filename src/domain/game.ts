// The rules of one game around ONE chess.js instance. chess.js's pgn(), history() and verbose
// moves() replay or re-derive the whole game (milliseconds at 100 plies), so everything a move
// must report (SAN list, movetext, repetition counts, endings) is kept here incrementally.

import { Chess } from 'chess.js';
import type { Square } from 'chess.js';
import { GAME_STATUSES } from './statuses.ts';
import { flat } from '../util/strings.ts';
import { forgetPast, hasLegalMove, playFast, type PlayedMove } from './fastMove.ts';
import { fail, ok, type Failure, type Result } from '../result.ts';

export const COLORS = ['white', 'black'] as const;
export type Color = (typeof COLORS)[number];

export const TERMINATIONS = [
  'checkmate',
  'resignation',
  'timeout',
  'agreement',
  'stalemate',
  'repetition',
  'fifty_moves',
  'insufficient_material',
] as const;
export type Termination = (typeof TERMINATIONS)[number];

/** Game statuses a list may be filtered by: every one. */
export const LIST_STATUSES = GAME_STATUSES;

export const RESULTS = ['1-0', '0-1', '1/2-1/2'] as const;
export type GameResult = (typeof RESULTS)[number];

export interface Ending {
  result: GameResult;
  winner: Color | null;
  termination: Termination;
}

/** The Move of the interface (2.4): chess.js's lowercase letters and flag string. */
export interface Move {
  from: string;
  to: string;
  san: string;
  piece: string;
  captured: string | null;
  promotion: string | null;
  flags: string;
}

export interface MoveInput {
  from: string;
  to: string;
  promotion?: string | null;
}

export interface PositionFlags {
  in_check: boolean;
  in_checkmate: boolean;
  in_stalemate: boolean;
  in_draw: boolean;
}

export type MoveFailureCode = 'INVALID_MOVE' | 'VALIDATION_ERROR' | 'GAME_NOT_ACTIVE';

/** A move judged legal and played on the board, but not yet part of the game (see `commit`). */
export type TriedMove = {
  move: Move;
  uci: string;
  /** FEN after the move. */
  fen: string;
  /** What the move appends to the movetext. */
  pgnSuffix: string;
  ending: Ending | null;
  position: PositionFlags;
};

export type MoveOutcome = Result<TriedMove, Failure<MoveFailureCode>>;

export const opponentOf = (color: Color): Color => (color === 'white' ? 'black' : 'white');

export function drawBy(termination: Termination): Ending {
  return { result: '1/2-1/2', winner: null, termination };
}

export function winBy(winner: Color, termination: Termination): Ending {
  return { result: winner === 'white' ? '1-0' : '0-1', winner, termination };
}

const UCI = /^([a-h][1-8])([a-h][1-8])([qrbn])?$/;

/** FIDE's "same position": placement, side to move, castling and en passant rights. */
function positionKey(fen: string): string {
  let spaces = 0;
  for (let i = 0; i < fen.length; i++) {
    if (fen[i] === ' ' && ++spaces === 4) return fen.slice(0, i);
  }
  return fen;
}

function toMove(m: PlayedMove): Move {
  return {
    from: m.from,
    to: m.to,
    san: m.san,
    piece: m.piece,
    captured: m.captured ?? null,
    promotion: m.promotion ?? null,
    flags: m.flags,
  };
}

export interface ChessGameOptions {
  /** Starting position; the standard one by default. */
  fen?: string;
  /** Moves already played (SAN or UCI), replayed when a game is rehydrated. */
  moves?: readonly string[];
}

export class ChessGame {
  private readonly chess: Chess;
  private readonly sans: string[] = [];
  private readonly ucis: string[] = [];
  private readonly repetitions = new Map<string, number>();
  private currentFen: string;
  private fullMove: number;
  private text = '';
  private last: Move | null = null;
  private flags: PositionFlags = { in_check: false, in_checkmate: false, in_stalemate: false, in_draw: false };
  private end: Ending | null = null;
  private side: Color;
  /** A move `tryMove` played on the board that is not yet committed (at most one). */
  private tentative: { tried: TriedMove; key: string; seen: number } | null = null;

  constructor(options: ChessGameOptions = {}) {
    this.chess = options.fen === undefined ? new Chess() : new Chess(options.fen);
    this.currentFen = this.chess.fen();
    this.side = this.chess.turn() === 'w' ? 'white' : 'black';
    this.fullMove = this.chess.moveNumber();
    this.repetitions.set(positionKey(this.currentFen), 1);
    for (const notation of options.moves ?? []) this.replay(notation);
  }

  get fen(): string {
    return this.currentFen;
  }

  get turn(): Color {
    return this.side;
  }

  /** Half-moves played in this game. */
  get moveCount(): number {
    return this.sans.length;
  }

  get sanList(): readonly string[] {
    return this.sans;
  }

  /** The same moves in UCI (`e2e4`, `e7e8q`), as an engine takes them. */
  get uciList(): readonly string[] {
    return this.ucis;
  }

  /** PGN movetext without result, e.g. "1. e4 e5 2. Nf3". */
  get movetext(): string {
    return this.text;
  }

  get lastMove(): Move | null {
    return this.last;
  }

  get position(): PositionFlags {
    return { ...this.flags };
  }

  /** Set by a move that ends the game, or by `finish` (resignation, agreement, timeout). */
  get ending(): Ending | null {
    return this.end;
  }

  /**
   * Judges a move and, when legal, plays it on the board without making it part of the game:
   * the caller makes it durable first, then `commit`s it (or `rollback`s when that failed).
   * Everything the game reports (FEN, turn, SAN list, movetext) is unchanged until the commit.
   */
  tryMove(input: MoveInput): MoveOutcome {
    this.rollback();
    if (this.end) return fail('GAME_NOT_ACTIVE', 'The game is over');
    const promotion = input.promotion ? input.promotion.toLowerCase() : undefined;
    if (!promotion && this.reachesLastRank(input)) return this.promotionMissing(input);

    // playFast matches as UCI does, so a promotion piece on a move that promotes nothing lands here.
    const played = playFast(this.chess, input.from, input.to, promotion);
    if (!played) {
      const asked = promotion ? `=${promotion.toUpperCase()}` : '';
      return fail('INVALID_MOVE', `Illegal move ${input.from}-${input.to}${asked}`);
    }
    return ok(this.judge(played));
  }

  /**
   * Makes `uci` part of the game: the tentative move when it is that one (no second legality
   * check), otherwise `uci` played afresh (a replay, or another node's move).
   */
  commit(uci: string): void {
    if (this.tentative?.tried.uci !== uci) {
      this.rollback();
      this.replay(uci);
      return;
    }
    this.record(this.tentative);
    this.tentative = null;
  }

  /** Judges and commits in one step, for callers with nothing to make durable in between. */
  play(input: MoveInput): MoveOutcome {
    const outcome = this.tryMove(input);
    if (outcome.ok) this.commit(outcome.value.uci);
    return outcome;
  }

  /** Takes a tentative move back off the board. */
  rollback(): void {
    if (!this.tentative) return;
    this.chess.undo();
    this.tentative = null;
  }

  /** Ends the game for a reason no move decides; later moves are refused. */
  finish(ending: Ending): void {
    this.end ??= ending;
  }

  /**
   * Lichess's simple rule for a flag fall: the side keeps winning chances unless it has a lone
   * king or a king and a single minor piece.
   */
  hasMatingMaterial(color: Color): boolean {
    const placement = this.currentFen.slice(0, this.currentFen.indexOf(' '));
    const mine = color === 'white' ? /[PNBRQ]/g : /[pnbrq]/g;
    const pieces = placement.match(mine) ?? [];
    if (pieces.some((p) => 'pPrRqQ'.includes(p))) return true;
    return pieces.length >= 2;
  }

  /** The ending when `flagged` runs out of time. */
  timeoutEnding(flagged: Color): Ending {
    const opponent = opponentOf(flagged);
    return this.hasMatingMaterial(opponent) ? winBy(opponent, 'timeout') : drawBy('timeout');
  }

  private reachesLastRank({ from, to }: MoveInput): boolean {
    const piece = this.chess.get(from as Square);
    if (!piece || piece.type !== 'p' || piece.color !== this.chess.turn()) return false;
    return to[1] === (piece.color === 'w' ? '8' : '1');
  }

  /** Rare path, so the non-mutating (slower) legality check is fine here. */
  private promotionMissing({ from, to }: MoveInput): MoveOutcome {
    const legal = this.chess.moves({ square: from as Square }).some((san) => san.includes(`${to}=`));
    if (!legal) return fail('INVALID_MOVE', `Illegal move ${from}-${to}`);
    return fail('VALIDATION_ERROR', 'A pawn reaching the last rank needs a promotion piece', { promotion: ['required: one of q, r, b, n'] });
  }

  private replay(notation: string): void {
    if (this.end) throw new Error(`Cannot replay ${notation}: the game already ended`);
    const uci = UCI.exec(notation);
    // chess.js throws on an illegal stored move; that is corrupt data, not a user error.
    const played = uci
      ? playFast(this.chess, uci[1]!, uci[2]!, uci[3])
      : this.chess.move(notation);
    if (!played) throw new Error(`Cannot replay ${notation}: illegal in this position`);
    this.judge(played);
    this.record(this.tentative!);
    this.tentative = null;
  }

  /** Everything a move played on the board will add to the game, from chess.js's Move. */
  private judge(m: PlayedMove): TriedMove {
    const move = toMove(m);
    const mover: Color = m.color === 'w' ? 'white' : 'black';
    const pgnSuffix =
      mover === 'white' ? `${this.text ? ' ' : ''}${this.fullMove}. ${m.san}` : this.text ? ` ${m.san}` : `${this.fullMove}... ${m.san}`;
    const key = positionKey(m.after);
    const seen = (this.repetitions.get(key) ?? 0) + 1;
    const ending = this.detectEnding(m, mover, seen);
    const termination = ending?.termination;
    const tried: TriedMove = {
      move,
      uci: `${move.from}${move.to}${move.promotion ?? ''}`,
      fen: m.after,
      pgnSuffix,
      ending,
      position: {
        in_check: m.san.endsWith('+') || m.san.endsWith('#'),
        in_checkmate: termination === 'checkmate',
        in_stalemate: termination === 'stalemate',
        in_draw: ending !== null && ending.winner === null,
      },
    };
    this.tentative = { tried, key, seen };
    return tried;
  }

  /**
   * Updates the incremental state with a judged move. A live game keeps only what its next moves
   * need: no undo history, and no position from before the last capture or pawn move (none can
   * recur); its movetext is flattened now and then instead of growing a rope of one string per ply.
   */
  private record({ tried, key, seen }: { tried: TriedMove; key: string; seen: number }): void {
    this.text += tried.pgnSuffix;
    if ((this.sans.length & 15) === 15) this.text = flat(this.text);
    if (this.side === 'black') this.fullMove++;
    this.side = opponentOf(this.side);
    this.sans.push(tried.move.san);
    this.ucis.push(tried.uci);
    this.currentFen = tried.fen;
    this.last = tried.move;
    // A pawn move or a capture: what resets the halfmove clock, read off the move, not the FEN.
    const irreversible = tried.move.piece === 'p' || tried.move.captured !== null;
    if (irreversible) this.repetitions.clear();
    this.repetitions.set(key, seen);
    forgetPast(this.chess, irreversible);
    this.end = tried.ending;
    this.flags = tried.position;
  }

  /** Cheapest checks first; chess.js is only asked what the SAN and FEN cannot tell. */
  private detectEnding(m: PlayedMove, mover: Color, seen: number): Ending | null {
    // chess.js suffixes SAN with '#' only after testing for mate.
    if (m.san.endsWith('#')) return winBy(mover, 'checkmate');
    if (!m.san.endsWith('+') && !hasLegalMove(this.chess)) return drawBy('stalemate');
    // Material only shrinks or changes kind through a capture or a promotion.
    if ((m.captured || m.promotion) && this.chess.isInsufficientMaterial()) {
      return drawBy('insufficient_material');
    }
    if (seen >= 3) return drawBy('repetition');
    if (halfmoveClock(m.after) >= 100) return drawBy('fifty_moves');
    return null;
  }
}

function halfmoveClock(fen: string): number {
  const fields = fen.split(' ');
  return Number(fields[4]);
}
