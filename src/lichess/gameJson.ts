// Lichess's GameJson (doc/specs/schemas/GameJson.yaml): one game as GET /game/export/{id} answers
// it in JSON and GET /api/games/user/{username} streams it in NDJSON, written as this project's
// own schema and built from the game's detail (the /v1 view: src/services/gameViews.ts).
import { z } from 'zod';
import { loadOpeningBook, sanMoves, type OpeningBook } from '../domain/openings.ts';
import type { GameDetail } from '../services/gameViews.ts';
import { GameStatusName, lichessId, Speed, speedOf, statusName } from './shapes.ts';

const GamePlayer = z.object({
  user: z.object({ id: z.string(), name: z.string() }),
  rating: z.number().int(),
  ratingDiff: z.number().int().optional(),
});

export const GameJson = z.object({
  id: z.string(),
  rated: z.boolean(),
  variant: z.literal('standard'),
  speed: Speed,
  perf: z.string(),
  createdAt: z.number().int(),
  lastMoveAt: z.number().int(),
  status: GameStatusName,
  players: z.object({ white: GamePlayer, black: GamePlayer }),
  winner: z.enum(['white', 'black']).optional(),
  opening: z.object({ eco: z.string(), name: z.string(), ply: z.number().int() }).optional(),
  moves: z.string().optional(),
  pgn: z.string().optional(),
  daysPerTurn: z.number().int().optional(),
  arenaTour: z.object({ id: z.string() }).optional(),
  clock: z.object({ initial: z.number().int(), increment: z.number().int(), totalTime: z.number().int() }).optional(),
  /** The mover's clock after each ply, centiseconds. */
  clocks: z.array(z.number().int()).optional(),
});
export type GameJson = z.infer<typeof GameJson>;

/** What a GameJson carries beyond the required fields, as Lichess's query parameters ask. */
export type GameJsonOptions = { moves: boolean; clocks: boolean; opening: boolean; pgn?: string };

let book: OpeningBook | undefined;

function player(p: GameDetail['white_player'], ratingDiff: number | undefined): z.infer<typeof GamePlayer> {
  // Only a seek waiting for an opponent has an empty seat, and no pending game is exported.
  const name = p?.username ?? '?';
  return { user: { id: lichessId(name), name }, rating: p?.rating ?? 0, ...(ratingDiff !== undefined ? { ratingDiff } : {}) };
}

export function formatGameJson(g: GameDetail, o: GameJsonOptions): GameJson {
  const sans = g.moves.flatMap((row) => (row.black === null ? [row.white] : [row.white, row.black]));
  const speed = speedOf({ timeControl: g.time_control, initialTime: g.initial_time, increment: g.increment });
  const diffs = g.rated && g.rating_changes ? g.rating_changes : undefined;
  const opening = o.opening && sans.length > 0 ? (book ??= loadOpeningBook()).classifySans(sans) : null;
  return {
    id: g.id,
    rated: g.rated,
    variant: 'standard',
    speed,
    perf: speed,
    createdAt: Date.parse(g.created_at),
    lastMoveAt: Date.parse(g.last_move_at ?? g.updated_at),
    status: statusName({ status: g.status, termination: g.termination, abortReason: g.abort_reason }),
    players: { white: player(g.white_player, diffs?.white), black: player(g.black_player, diffs?.black) },
    ...(g.winner ? { winner: g.winner } : {}),
    ...(opening ? { opening: { eco: opening.eco, name: opening.name, ply: sanMoves(opening.moves).length } } : {}),
    ...(o.moves ? { moves: sans.join(' ') } : {}),
    ...(o.pgn !== undefined ? { pgn: o.pgn } : {}),
    ...(g.days_per_move !== null
      ? { daysPerTurn: g.days_per_move }
      : { clock: { initial: g.initial_time, increment: g.increment, totalTime: g.initial_time + 40 * g.increment } }),
    ...(g.tournament_id ? { arenaTour: { id: g.tournament_id } } : {}),
    ...(o.clocks && g.days_per_move === null
      ? { clocks: g.moves.flatMap((row) => (row.black_time === null ? [row.white_time] : [row.white_time, row.black_time])).map((s) => Math.round(s * 100)) }
      : {}),
  };
}
