// The Lichess puzzle database format (database.lichess.org, CC0): one CSV row per puzzle,
// `PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags`
// (newer dumps add `DailyDate`). FEN is the position BEFORE the opponent's move that sets the
// puzzle; Moves are UCI, that setup move first, then the solver's and the replies in turn.

import { createHash } from 'node:crypto';
import { Chess } from 'chess.js';
import type { Color } from './game.ts';
import { playQuiet } from './fastMove.ts';
import { err, ok, type Result } from '../result.ts';

/** The columns a row must have, by header name; any others (DailyDate) are ignored. */
export const PUZZLE_COLUMNS = [
  'PuzzleId',
  'FEN',
  'Moves',
  'Rating',
  'RatingDeviation',
  'Popularity',
  'NbPlays',
  'Themes',
  'GameUrl',
  'OpeningTags',
] as const;
export type PuzzleCsvRecord = Record<(typeof PUZZLE_COLUMNS)[number], string>;

/** Lichess puzzle ids are five base-62 characters; a few more are allowed for dumps to come. */
const PUZZLE_ID = /^[0-9A-Za-z]{5,10}$/;
export const isPuzzleId = (value: unknown): value is string => typeof value === 'string' && PUZZLE_ID.test(value);

/** A UCI move: from, to, and the promotion piece when a pawn promotes. */
export const UCI_MOVE = /^([a-h][1-8])([a-h][1-8])([qrbn])?$/;
const THEME = /^[A-Za-z0-9]{1,64}$/;
const OPENING_TAG = /^[A-Za-z0-9_-]{1,128}$/;
/** Longer lines than this are not puzzles but games: 30 solver moves and their replies. */
export const MAX_SOLUTION_PLIES = 60;

/** A puzzle as it is stored and served: the position the solver faces and the line that solves it. */
export type PuzzleData = {
  id: string;
  /** After the setup move: the solver is to move. */
  fen: string;
  /** The setup move (UCI): the opponent's move that led to `fen`. */
  lastMove: string;
  /** Every move after the setup move, the solver's (even indexes) and the replies (odd ones). */
  solution: string[];
  rating: number;
  ratingDeviation: number;
  popularity: number;
  plays: number;
  themes: string[];
  openingTags: string[];
  gameUrl: string;
};

/** A puzzle, or the id of the record that is not one and why. */
export type ParsedPuzzle = Result<PuzzleData, { id: string; reason: string }>;

/** The columns missing from a CSV header (empty when every column of the format is there). */
export const missingColumns = (header: readonly string[]): string[] => PUZZLE_COLUMNS.filter((c) => !header.includes(c));

/** The side to move in a FEN. */
export const sideToMove = (fen: string): Color => (fen.split(' ')[1] === 'b' ? 'black' : 'white');

/** How many moves the solver plays in a solution (it starts and ends with theirs). */
export const solverMoveCount = (solution: readonly string[]) => Math.ceil(solution.length / 2);

/** Plays a UCI move on `chess` when it is legal there; false (and nothing played) otherwise. */
export function playUci(chess: Chess, uci: string): boolean {
  const m = UCI_MOVE.exec(uci);
  return !!m && playQuiet(chess, m[1]!, m[2]!, m[3]);
}

function integer(text: string, min: number, max: number): number | undefined {
  if (!/^-?\d{1,9}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= min && n <= max ? n : undefined;
}

const words = (text: string) => (text.trim() === '' ? [] : text.trim().split(/ +/));

/**
 * One CSV record → a puzzle, or why it is not one. Every field is checked, and the whole line is
 * replayed with chess.js from the row's FEN: a puzzle whose setup or solution is illegal, or whose
 * line does not end on the solver's move, would be one nobody can solve.
 */
export function parsePuzzleRecord(r: PuzzleCsvRecord): ParsedPuzzle {
  const id = r.PuzzleId ?? '';
  const fail = (reason: string): ParsedPuzzle => err({ id, reason });
  if (!isPuzzleId(id)) return fail('PuzzleId must be 5 to 10 letters and digits');
  const rating = integer(r.Rating, 0, 5000);
  if (rating === undefined) return fail('Rating must be an integer from 0 to 5000');
  const ratingDeviation = integer(r.RatingDeviation, 0, 1000);
  if (ratingDeviation === undefined) return fail('RatingDeviation must be an integer from 0 to 1000');
  const popularity = integer(r.Popularity, -100, 100);
  if (popularity === undefined) return fail('Popularity must be an integer from -100 to 100');
  const plays = integer(r.NbPlays, 0, 2_000_000_000);
  if (plays === undefined) return fail('NbPlays must be a non-negative integer');
  const themes = words(r.Themes);
  if (!themes.every((t) => THEME.test(t))) return fail('Themes must be words of letters and digits');
  const openingTags = words(r.OpeningTags);
  if (!openingTags.every((t) => OPENING_TAG.test(t))) return fail('OpeningTags must be words of letters, digits, _ and -');
  const gameUrl = r.GameUrl.trim();
  if (!/^https?:\/\/\S{1,500}$/.test(gameUrl)) return fail('GameUrl must be an http(s) URL');

  const moves = words(r.Moves);
  if (moves.length < 2 || moves.length > MAX_SOLUTION_PLIES + 1) return fail(`Moves must hold 2 to ${MAX_SOLUTION_PLIES + 1} moves`);
  if (moves.length % 2 !== 0) return fail('Moves must end on the solver’s move');
  let chess: Chess;
  try {
    chess = new Chess(r.FEN);
  } catch {
    return fail('FEN is not a legal position');
  }
  const [setup, ...solution] = moves as [string, ...string[]];
  if (!playUci(chess, setup)) return fail(`the setup move ${setup} is not legal in FEN`);
  const fen = chess.fen();
  for (const [i, move] of solution.entries()) {
    if (!playUci(chess, move)) return fail(`move ${i + 2} (${move}) of Moves is not legal`);
  }
  return ok({ id, fen, lastMove: setup, solution, rating, ratingDeviation, popularity, plays, themes, openingTags, gameUrl });
}

/** The UTC day of a moment, `YYYY-MM-DD`. */
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Id characters in byte order, the order ids are compared in (collation "C"). */
const ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Where the search for `day`'s daily puzzle starts in id order: a point that depends on the day
 * alone, so every node that picks it picks the same puzzle, and days spread over the ids.
 */
export function dailyStartKey(day: string): string {
  const digest = createHash('sha256').update(`daily-puzzle:${day}`).digest();
  return [...digest.subarray(0, 5)].map((b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}
