// A game as Lichess's Board and Bot game streams show it (lichess-org/api, doc/specs/schemas:
// GameFullEvent, GameStateEvent, ChatLineEvent, OpponentGoneEvent), written as this project's own
// schemas, and the fold that keeps it from the service's own stream messages (docs/protocol.md):
// the UCI move list (a takeback removes plies), the clocks in ms, the pending offers, the status.
// Pure: the subscriber (gameStream.ts) feeds it and writes what it answers.
import { z } from 'zod';
import { COLORS, type Color } from '../domain/game.ts';
import type { Times, DrawOfferView, TakebackView } from '../domain/liveGameViews.ts';
import { uciLine } from '../domain/uciLine.ts';
import type { GameDetail } from '../services/gameViews.ts';
import { GameStatusName, LichessPlayer, lichessId, perfName, speedOf, Speed, STANDARD, statusName, Variant } from './shapes.ts';

const ms = z.number().int();

/** `gameState`: sent after every change; `wdraw`…`btakeback` only while true, `winner` only when there is one. */
export const GameStateLine = z.object({
  type: z.literal('gameState'),
  /** Every move in UCI, separated by spaces. */
  moves: z.string(),
  wtime: ms,
  btime: ms,
  winc: ms,
  binc: ms,
  status: GameStatusName,
  winner: z.enum(COLORS).optional(),
  wdraw: z.literal(true).optional(),
  bdraw: z.literal(true).optional(),
  wtakeback: z.literal(true).optional(),
  btakeback: z.literal(true).optional(),
});
export type GameStateLine = z.infer<typeof GameStateLine>;

/** `gameFull`: the first line, with what never changes; `clock` for a clocked game, `daysPerTurn` for correspondence. */
export const GameFullLine = z.object({
  type: z.literal('gameFull'),
  id: z.string(),
  variant: Variant,
  clock: z.object({ initial: ms, increment: ms }).optional(),
  speed: Speed,
  perf: z.object({ name: z.string() }),
  rated: z.boolean(),
  createdAt: ms,
  white: LichessPlayer,
  black: LichessPlayer,
  initialFen: z.string(),
  state: GameStateLine,
  daysPerTurn: z.number().int().optional(),
  tournamentId: z.string().optional(),
});
export type GameFullLine = z.infer<typeof GameFullLine>;

export const ChatLine = z.object({
  type: z.literal('chatLine'),
  room: z.enum(['player', 'spectator']),
  username: z.string(),
  text: z.string(),
});
export type ChatLine = z.infer<typeof ChatLine>;

/** The opponent left (`claimWinInSeconds`: until the caller may claim), or came back. */
export const OpponentGoneLine = z.object({ type: z.literal('opponentGone'), gone: z.boolean(), claimWinInSeconds: z.number().int().optional() });
export type OpponentGoneLine = z.infer<typeof OpponentGoneLine>;

export type GameStreamLine = GameFullLine | GameStateLine | ChatLine | OpponentGoneLine;

/** What a stream knows beyond the game's detail: who proposes a takeback now, which players are bots. */
export type GameFacts = { takebackBy?: string; bots: ReadonlySet<string> };

const toMs = (seconds: number) => Math.round(seconds * 1000);
const sansOf = (g: GameDetail) => g.moves.flatMap((row) => (row.black === null ? [row.white] : [row.white, row.black]));

/**
 * One game as a Lichess stream tells it. Made from the game's detail (a `state` message), then
 * moved on by its events; `state()` is the `gameState` line of the moment.
 */
export class LichessBoard {
  private moves: string[];
  private times: Times;
  private drawBy: Color | null;
  private takebackBy: Color | null;
  private status: GameStatusName;
  private winner: Color | null;
  private readonly increment: number;

  constructor(
    private readonly game: GameDetail,
    facts: GameFacts,
  ) {
    this.moves = uciLine(sansOf(game));
    this.times = { white: game.white_time_remaining, black: game.black_time_remaining };
    this.increment = game.days_per_move === null ? game.increment * 1000 : 0;
    this.drawBy = game.draw_offer?.status === 'pending' ? this.colorOf(game.draw_offer.offered_by) : null;
    this.takebackBy = facts.takebackBy ? this.colorOf(facts.takebackBy) : null;
    this.status = statusOf(game);
    this.winner = game.winner;
  }

  /** The colour `userId` plays in this game, if any. */
  colorOf(userId: string | undefined): Color | null {
    if (userId === undefined) return null;
    return this.game.white_player?.id === userId ? 'white' : this.game.black_player?.id === userId ? 'black' : null;
  }

  /** Whether the game is over: its final `gameState` is the last line. */
  get over(): boolean {
    return this.status !== 'started' && this.status !== 'created';
  }

  /** A move: its UCI is the move's squares and promotion; the clocks are as of the move. */
  moved(m: { from: string; to: string; promotion: string | null }, times: Times): void {
    this.moves.push(`${m.from}${m.to}${m.promotion ?? ''}`);
    this.times = times;
  }

  /** The clocks of a time_update: no line of their own (Lichess sends none for a tick), they show in the next. */
  ticked(times: Times): void {
    this.times = times;
  }

  drawOffer(offer: DrawOfferView): void {
    this.drawBy = offer.status === 'pending' ? this.colorOf(offer.offered_by) : null;
  }

  takebackOffer(takeback: TakebackView): void {
    this.takebackBy = takeback.status === 'pending' ? this.colorOf(takeback.offered_by) : null;
  }

  /** An accepted takeback: its plies leave the move list. */
  takenBack(plies: number, times: Times): void {
    this.moves = this.moves.slice(0, Math.max(0, this.moves.length - plies));
    this.takebackBy = null;
    this.times = times;
  }

  /** The game as it ended, from its detail read after the end (the clocks as the end left them). */
  ended(final: GameDetail): void {
    this.times = { white: final.white_time_remaining, black: final.black_time_remaining };
    this.status = statusOf(final);
    this.winner = final.winner;
    this.drawBy = null;
    this.takebackBy = null;
  }

  /** Ended, when the game could not be read after its end: as its `game_end` says, with the last clocks seen. */
  endedAs(end: { status: 'finished' | 'abandoned'; abort_reason: string | null; result: { winner: Color | null; termination: GameDetail['termination'] } }): void {
    this.status = statusName({ status: end.status, termination: end.result.termination, abortReason: end.abort_reason });
    this.winner = end.result.winner;
    this.drawBy = null;
    this.takebackBy = null;
  }

  state(): GameStateLine {
    const line: GameStateLine = {
      type: 'gameState',
      moves: this.moves.join(' '),
      wtime: toMs(this.times.white),
      btime: toMs(this.times.black),
      winc: this.increment,
      binc: this.increment,
      status: this.status,
    };
    if (this.winner) line.winner = this.winner;
    if (this.drawBy) line[this.drawBy === 'white' ? 'wdraw' : 'bdraw'] = true;
    if (this.takebackBy) line[this.takebackBy === 'white' ? 'wtakeback' : 'btakeback'] = true;
    return line;
  }

  /** The first line: the game's immutable parts and its state. */
  full(facts: GameFacts): GameFullLine {
    const g = this.game;
    const speed = speedOf({ timeControl: g.time_control, initialTime: g.initial_time, increment: g.increment });
    const line: GameFullLine = {
      type: 'gameFull',
      id: g.id,
      variant: STANDARD,
      speed,
      perf: { name: perfName(speed) },
      rated: g.rated,
      createdAt: Date.parse(g.created_at),
      white: playerOf(g.white_player, facts),
      black: playerOf(g.black_player, facts),
      initialFen: 'startpos',
      state: this.state(),
    };
    if (g.days_per_move === null) line.clock = { initial: g.initial_time * 1000, increment: g.increment * 1000 };
    else line.daysPerTurn = g.days_per_move;
    if (g.tournament_id) line.tournamentId = g.tournament_id;
    return line;
  }
}

/**
 * Lichess's status of a game's detail. A `timeout` is Lichess's `timeout` when it was claimed
 * against a player who left (the decider keeps both clocks then), `outoftime` when a flag fell
 * (the flagged clock shows 0).
 */
function statusOf(g: GameDetail): GameStatusName {
  const claimed = g.termination === 'timeout' && g.white_time_remaining > 0 && g.black_time_remaining > 0;
  return statusName({ status: g.status, termination: g.termination, abortReason: g.abort_reason }, claimed);
}

/** A seat as Lichess names a player: the username (a bot finds its colour by it), BOT for a bot account. */
function playerOf(p: GameDetail['white_player'], facts: GameFacts): LichessPlayer {
  // An open seek has a seat nobody holds yet.
  if (!p) return { id: '', name: '', title: null, rating: 0 };
  return { id: lichessId(p.username), name: p.username, title: facts.bots.has(p.id) ? 'BOT' : null, rating: p.rating };
}
