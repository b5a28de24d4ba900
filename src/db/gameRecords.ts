// The games row as a record, and the mapping every read of it shares (src/db/games.ts,
// src/db/gameLists.ts, src/db/liveTail.ts).

import type { DrawOfferStatus, GameStatus } from '../domain/statuses.ts';
import type { TimeControl } from '../domain/timeControl.ts';

/** A games row as plain data (times in ms, dates as Date). */
export type GameRecord = {
  id: string;
  kind: 'challenge' | 'matchmaking' | 'tournament';
  createdBy: string;
  whiteId: string | null;
  blackId: string | null;
  colorPreference: 'white' | 'black' | 'random';
  status: GameStatus;
  result: '1-0' | '0-1' | '1/2-1/2' | null;
  winner: 'white' | 'black' | null;
  termination: string | null;
  abortReason: string | null;
  timeControl: TimeControl;
  /** Correspondence games: the days each move may take (DESIGN 2.11); null for a clocked game. */
  daysPerMove: number | null;
  /** Correspondence games: when the side to move's period ends (migration 026); else null. */
  moveDeadline: Date | null;
  initialTime: number;
  increment: number;
  rated: boolean;
  fen: string;
  pgn: string;
  moveCount: number;
  whiteTimeMs: number;
  blackTimeMs: number;
  clockRunning: boolean;
  turnStartedAt: Date | null;
  firstMoveDeadline: Date | null;
  whiteRating: number | null;
  blackRating: number | null;
  whiteRatingChange: number | null;
  blackRatingChange: number | null;
  roomState: Record<string, unknown>;
  eventSeq: number;
  host: string | null;
  hostEpoch: number;
  leaseExpiresAt: Date | null;
  expiresAt: Date | null;
  createdAt: Date;
  /** The last change: the later of the row's updated_at and last_move_at (migration 016). */
  updatedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  lastMoveAt: Date | null;
  /** The arena that paired the game (DESIGN 2.10), else null. */
  tournamentId: string | null;
  /** DESIGN 2.11: the finished game this one is a rematch of (migration 025), else null. */
  rematchOf: string | null;
};

export type PlayerRecord = { id: string; username: string; avatarUrl: string | null; country: string | null };
export type GameWithPlayers = GameRecord & { white: PlayerRecord | null; black: PlayerRecord | null };

export type MoveRecord = {
  ply: number;
  san: string;
  uci: string;
  clockMs: number;
  createdAt: Date;
  /** The game's event number of the move (null on rows older than migration 017). */
  eventSeq?: number | null;
};

/** DESIGN 2.11: the rematch asked for after a finished game: the new game's id, who asked, and how it stands. */
export type RematchRecord = { gameId: string; offeredBy: string; status: 'pending' | 'active' | 'finished' | 'abandoned'; abortReason: string | null; expiresAt: Date | null };

export type DrawOfferRecord = {
  id: string;
  gameId: string;
  offeredBy: string;
  ply: number;
  status: DrawOfferStatus;
  createdAt: Date;
  expiresAt: Date;
};

const camelNames = new Map<string, string>();
/** snake_case column → camelCase field, worked out once per column name (every row of every read goes through it). */
function camel(column: string): string {
  let name = camelNames.get(column);
  if (name === undefined) camelNames.set(column, (name = column.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())));
  return name;
}

export function toGameRecord(row: Record<string, unknown>): GameRecord {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[camel(k)] = v;
  const game = out as GameRecord;
  // A move writes last_move_at only, so that its update stays heap-only (migration 016).
  if (game.lastMoveAt && game.updatedAt && game.lastMoveAt > game.updatedAt) game.updatedAt = game.lastMoveAt;
  return game;
}

export const PLAYER_COLUMNS = (alias: string) =>
  `${alias}.id AS ${alias}_id, ${alias}.username AS ${alias}_username, ${alias}.avatar_url AS ${alias}_avatar_url, ${alias}.country AS ${alias}_country`;

function player(row: Record<string, unknown>, alias: string): PlayerRecord | null {
  if (!row[`${alias}_id`]) return null;
  return {
    id: row[`${alias}_id`] as string,
    username: row[`${alias}_username`] as string,
    avatarUrl: row[`${alias}_avatar_url`] as string | null,
    country: row[`${alias}_country`] as string | null,
  };
}

export function withPlayers(row: Record<string, unknown>): GameWithPlayers {
  const { w_id, w_username, w_avatar_url, w_country, b_id, b_username, b_avatar_url, b_country, ...game } = row;
  return { ...toGameRecord(game), white: player(row, 'w'), black: player(row, 'b') };
}

/** A game row with both players' profiles joined (`w_*`, `b_*`): the columns and the FROM clause. */
export const WITH_PLAYERS_COLUMNS = `g.*, ${PLAYER_COLUMNS('w')}, ${PLAYER_COLUMNS('b')}`;
export const WITH_PLAYERS_FROM = `FROM games g LEFT JOIN users w ON w.id = g.white_id LEFT JOIN users b ON b.id = g.black_id`;
