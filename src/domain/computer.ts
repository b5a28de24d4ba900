// The computer as an opponent (DESIGN 2.14): its levels and accounts, and the think of a move.

/**
 * Per level: Stockfish's `Skill Level` (0–20) and the think budget (`movetime` ms, a `depth` cap;
 * the search stops at the first reached). Level 1 weak and fast, level 8 full strength with a
 * longer think (Lichess's think times). Never more than the bot's clock allows (`thinkMs`).
 */
export const LEVELS: readonly { skill: number; movetimeMs: number; depth: number }[] = [
  { skill: 0, movetimeMs: 50, depth: 1 },
  { skill: 3, movetimeMs: 100, depth: 2 },
  { skill: 6, movetimeMs: 150, depth: 3 },
  { skill: 9, movetimeMs: 200, depth: 5 },
  { skill: 12, movetimeMs: 300, depth: 8 },
  { skill: 15, movetimeMs: 400, depth: 13 },
  { skill: 18, movetimeMs: 500, depth: 18 },
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
 * its increment (its clock runs like a person's), and at least 10 ms.
 */
export function thinkMs(level: number, remainingMs: number, incrementMs: number): number {
  return Math.max(10, Math.min(LEVELS[level - 1].movetimeMs, Math.floor(remainingMs / 30 + incrementMs / 2)));
}
