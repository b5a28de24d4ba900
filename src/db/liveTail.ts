import { movetextSuffix } from '../domain/pgn.ts';
import type { GameRecord } from './gameRecords.ts';
import type { Queryable } from './pool.ts';

/**
 * The moves of an active game after its row's snapshot (migration 017): a move is appended to
 * game_moves alone, and the games row is rewritten only every few plies, so a read of an active
 * game folds these rows into the snapshot to show the game as it stands.
 */
export type TailMove = {
  ply: number;
  san: string;
  fen: string;
  whiteMs: number;
  blackMs: number;
  eventSeq: number;
  /** The node's time of the move (the next turn's start, on the hosting node's clock). */
  playedAt: Date;
  /** PostgreSQL's time of the write (what the row's last_move_at said when moves rewrote it). */
  createdAt: Date;
};

/** The SQL columns of a tail move, in TailMove's order, as one JSON array per move. */
export const TAIL_MOVE_JSON = (m: string) =>
  `json_build_array(${m}.ply, ${m}.san, ${m}.fen, ${m}.white_ms, ${m}.black_ms, ${m}.event_seq, ${m}.played_at, ${m}.created_at)`;

type TailRow = [number, string, string, number, number, number, string, string];

export function parseTail(json: unknown): TailMove[] {
  return ((json ?? []) as TailRow[]).map(([ply, san, fen, whiteMs, blackMs, eventSeq, playedAt, createdAt]) => ({
    ply,
    san,
    fen,
    whiteMs,
    blackMs,
    eventSeq,
    playedAt: new Date(playedAt),
    createdAt: new Date(createdAt),
  }));
}

/**
 * The game as it stands after the moves that follow its snapshot (`tail`, in ply order, only those
 * after `game.moveCount`). The position, movetext and event number always follow the moves; the
 * clocks only when the last move is not older than the snapshot's turn start, because a node that
 * took the game over (or released it) books the clocks into the row after the moves it found
 * (saveResumedClocks, releaseLease), and those booked clocks are the later truth.
 */
export function foldTail<G extends GameRecord>(game: G, tail: readonly TailMove[]): G {
  const moves = tail.filter((m) => m.ply > game.moveCount);
  const last = moves.at(-1);
  if (!last || game.status !== 'active') return game;
  let pgn = game.pgn;
  for (const m of moves) pgn += movetextSuffix(m.ply, m.san, pgn !== '');
  const folded: G = { ...game, pgn, fen: last.fen, moveCount: last.ply, eventSeq: Math.max(game.eventSeq, last.eventSeq) };
  if (!game.lastMoveAt || last.createdAt > game.lastMoveAt) folded.lastMoveAt = last.createdAt;
  if (folded.lastMoveAt && folded.lastMoveAt > folded.updatedAt) folded.updatedAt = folded.lastMoveAt;
  if (!game.turnStartedAt || last.playedAt >= game.turnStartedAt) {
    folded.whiteTimeMs = last.whiteMs;
    folded.blackTimeMs = last.blackMs;
    // Lean moves are never the first two plies: the clocks run from Black's first move on.
    folded.clockRunning = true;
    folded.turnStartedAt = last.playedAt;
    folded.firstMoveDeadline = null;
  }
  return folded;
}

/** Folds the tails of the active games among `games` (one statement, none when no game is active). */
export async function foldActiveTails<G extends GameRecord>(db: Queryable, games: G[]): Promise<G[]> {
  const active = games.filter((g) => g.status === 'active');
  if (active.length === 0) return games;
  const { rows } = await db.query(
    `SELECT m.game_id, ${TAIL_MOVE_JSON('m')} AS move
       FROM unnest($1::uuid[], $2::int[]) AS s(id, n) JOIN game_moves m ON m.game_id = s.id AND m.ply > s.n
      ORDER BY m.game_id, m.ply`,
    [active.map((g) => g.id), active.map((g) => g.moveCount)],
  );
  const tails = new Map<string, unknown[]>();
  for (const r of rows) {
    const list = tails.get(r.game_id) ?? [];
    list.push(r.move);
    tails.set(r.game_id, list);
  }
  return games.map((g) => (tails.has(g.id) ? foldTail(g, parseTail(tails.get(g.id))) : g));
}

/**
 * The SQL expression of an active game's last change for list ordering: the later of the row's
 * updated_at, its last_move_at and its newest move after the snapshot (`g` is the games alias).
 */
export const LAST_CHANGE_SQL = `greatest(g.updated_at, g.last_move_at,
  (SELECT max(m.created_at) FROM game_moves m WHERE m.game_id = g.id AND m.ply > g.move_count))`;
