// The computer as an opponent (DESIGN 2.14): its levels and accounts, the think of a move, and
// its answer to a draw offer.
import type { EngineScore } from './gameAnalysis.ts';

/**
 * Per level: Stockfish's `Skill Level` (0–20) and the think budget (`movetime` ms, a `depth` cap;
 * the search stops at the first reached). Level 1 weak and fast, level 8 full strength with a
 * longer think (Lichess's think times). Never more than the bot's clock allows (`thinkMs`).
 * Below level 8 the depth cap, reached well within the think, is what sets a level apart:
 * Stockfish's skill error shrinks little from one skill to the next (it is 120 − 2 × skill
 * before 20 turns it off), so skills 15 and 18 at 400 and 500 ms drew 9 games of 20. Measured:
 * docs/benchmarks.md, "The computer's levels".
 */
export const LEVELS: readonly { skill: number; movetimeMs: number; depth: number }[] = [
  { skill: 0, movetimeMs: 50, depth: 1 },
  { skill: 3, movetimeMs: 100, depth: 2 },
  { skill: 6, movetimeMs: 150, depth: 3 },
  { skill: 9, movetimeMs: 200, depth: 4 },
  { skill: 12, movetimeMs: 300, depth: 6 },
  { skill: 15, movetimeMs: 400, depth: 8 },
  { skill: 18, movetimeMs: 500, depth: 12 },
  { skill: 20, movetimeMs: 1000, depth: 30 },
];

export const MIN_LEVEL = 1;
export const MAX_LEVEL = LEVELS.length;

/** The bot account of a level (migration 032): a hyphen no signup accepts. */
export const computerUsername = (level: number) => `stockfish-${level}`;
export const COMPUTER_USERNAMES: readonly string[] = LEVELS.map((_, i) => computerUsername(i + 1));

/** The level of a computer account's username, or undefined. */
export function levelOf(username: string): number | undefined {
  const i = COMPUTER_USERNAMES.indexOf(username);
  return i >= 0 ? i + 1 : undefined;
}

/**
 * The think of one move: the level's, but at most a thirtieth of the bot's time left plus half
 * its increment (its clock runs like a person's), and at least 10 ms. When searches queue for the
 * node's engines (`waiting` of them before this one, on `engines` engines), each thinks its share,
 * the level's think × engines / (waiting + engines): a move then waits in the queue for less than
 * one think of its level, however many games the computer plays; it plays faster and weaker
 * rather than letting its clock run down while it waits.
 */
export function thinkMs(level: number, remainingMs: number, incrementMs: number, waiting = 0, engines = 1): number {
  const share = (LEVELS[level - 1].movetimeMs * engines) / (waiting + engines);
  return Math.max(10, Math.floor(Math.min(share, remainingMs / 30 + incrementMs / 2)));
}

/** Full moves each side plays before the computer agrees to a draw. */
export const DRAW_AFTER_PLIES = 60;
/** The computer agrees to a draw when its own score is at most this (centipawns, its side's view). */
export const DRAW_MAX_CP = 30;

/**
 * Whether the computer accepts a person's draw offer: after 30 moves each, when its own last
 * search did not see it better than +0.30 (or saw itself mated). Without a score of its own (the
 * game came over from another node and it has not moved since), it declines.
 */
export function acceptsDraw(score: EngineScore | undefined, ply: number): boolean {
  if (!score || ply < DRAW_AFTER_PLIES) return false;
  return 'mate' in score ? score.mate < 0 : score.cp <= DRAW_MAX_CP;
}
