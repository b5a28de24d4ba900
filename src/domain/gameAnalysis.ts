// A finished game's analysis (DESIGN 2.5) from what the engine found in each of its positions.
// Pure: the worker replays the game, asks the engine, and hands the findings here.
import { Chess, DEFAULT_POSITION } from 'chess.js';
import { classifyMove, evaluationOf, gameAccuracy, winPercent, type Score, type MoveClass } from './accuracy.ts';
import type { Opening } from './openings.ts';

/** Every game starts from the standard position. */
export const START_FEN = DEFAULT_POSITION;

/** An engine score from the side to move's point of view (UCI's convention). */
export type EngineScore = { cp: number } | { mate: number };

/** What the engine found in one position: its score (White's point of view) and best move (UCI). */
export type PositionEval = { score: Score; best: string | null };

export type PlayedMove = { san: string; uci: string };

/** Every position of a game: index 0 is the start, index i follows ply i. */
export type Replay = { fens: string[]; uci: string[]; san: string[] };

export type AnalysedMove = {
  san: string;
  /** Of the position after the move: pawns from White's point of view, ±100 for a forced mate. */
  evaluation: number;
  /** Signed moves to mate (positive: White mates) when the position after the move is a forced mate. */
  mate: number | null;
  best_move: string | null;
  classification: MoveClass;
};

export type GameAnalysis = {
  game_id: string;
  analyzed_at: string;
  engine: string;
  depth: number;
  accuracy: { white: number | null; black: number | null };
  mistakes: { white: number; black: number };
  blunders: { white: number; black: number };
  moves: Array<{ move_number: number; white: AnalysedMove | null; black: AnalysedMove | null }>;
  opening: Opening | null;
};

/** The positions of a game played from the standard start, by its moves in UCI. */
export function replayGame(moves: readonly PlayedMove[]): Replay {
  const chess = new Chess();
  const fens = [chess.fen()];
  for (const m of moves) {
    chess.move({ from: m.uci.slice(0, 2), to: m.uci.slice(2, 4), promotion: m.uci[4] });
    fens.push(chess.fen());
  }
  return { fens, uci: moves.map((m) => m.uci), san: moves.map((m) => m.san) };
}

/**
 * The score of a position no search is needed for: the side to move is checkmated, or the game
 * is drawn on the board (stalemate, insufficient material). Undefined when the engine must look.
 */
export function settledScore(fen: string): Score | undefined {
  const chess = new Chess(fen);
  if (chess.isCheckmate()) return { mate: 0, winner: chess.turn() === 'w' ? 'black' : 'white' };
  if (chess.isStalemate() || chess.isInsufficientMaterial()) return { cp: 0 };
  return undefined;
}

/** An engine's score turned to White's point of view. */
export function whiteScore(score: EngineScore, sideToMove: 'w' | 'b'): Score {
  if ('mate' in score) {
    // mate > 0: the side to move mates; mate < 0 (or 0): it is mated.
    const moverWins = score.mate > 0;
    return { mate: Math.abs(score.mate), winner: moverWins === (sideToMove === 'w') ? 'white' : 'black' };
  }
  return { cp: sideToMove === 'w' ? score.cp : -score.cp };
}

export const sideToMove = (fen: string): 'w' | 'b' => (fen.split(' ')[1] === 'b' ? 'b' : 'w');

/** The SAN of a UCI move in a position; null when there is none. */
function sanOf(fen: string, uci: string | null): string | null {
  if (!uci) return null;
  try {
    return new Chess(fen).move({ from: uci.slice(0, 2), to: uci.slice(2, 4), promotion: uci[4] }).san;
  } catch {
    return null;
  }
}

const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;

/**
 * The Game analysis object of spec 2.7. `evals[i]` is the engine's finding in `replay.fens[i]`;
 * each move is judged by its mover's Win% drop from the position before it to the one after.
 */
export function buildAnalysis(input: {
  gameId: string;
  replay: Replay;
  evals: readonly PositionEval[];
  engine: string;
  depth: number;
  analyzedAt: Date;
  opening: Opening | null;
}): GameAnalysis {
  const { replay, evals } = input;
  if (evals.length !== replay.fens.length) throw new Error(`expected ${replay.fens.length} evaluations, got ${evals.length}`);
  const wins = evals.map((e) => winPercent(e.score));
  const mistakes = { white: 0, black: 0 };
  const blunders = { white: 0, black: 0 };
  const rows: GameAnalysis['moves'] = [];
  replay.uci.forEach((uci, i) => {
    const color = i % 2 === 0 ? 'white' : 'black';
    // Win% of the mover before and after its move.
    const before = color === 'white' ? wins[i] : 100 - wins[i];
    const after = color === 'white' ? wins[i + 1] : 100 - wins[i + 1];
    const best = evals[i].best;
    const classification = classifyMove(before - after, best === uci);
    if (classification === 'mistake') mistakes[color]++;
    if (classification === 'blunder') blunders[color]++;
    const { evaluation, mate } = evaluationOf(evals[i + 1].score);
    const move: AnalysedMove = { san: replay.san[i], evaluation, mate, best_move: sanOf(replay.fens[i], best), classification };
    if (color === 'white') rows.push({ move_number: i / 2 + 1, white: move, black: null });
    else rows[rows.length - 1].black = move;
  });
  const accuracy = gameAccuracy(wins);
  return {
    game_id: input.gameId,
    analyzed_at: input.analyzedAt.toISOString(),
    engine: input.engine,
    depth: input.depth,
    accuracy: {
      white: accuracy.white === null ? null : round(accuracy.white, 1),
      black: accuracy.black === null ? null : round(accuracy.black, 1),
    },
    mistakes,
    blunders,
    moves: rows,
    opening: input.opening,
  };
}
