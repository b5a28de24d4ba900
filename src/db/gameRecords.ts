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

/** `bot`: a bot account (Lichess's title BOT), the computer's included; read where known. */
export type PlayerRecord = { id: string; username: string; avatarUrl: string | null; country: string | null; bot?: boolean };
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

/**
 * A games row (its snake_case columns, as GAME_COLUMN_NAMES names them) as a GameRecord. One object
 * literal: a record built field by field from the row's keys made 25 times the garbage, and an
 * export reads a million rows (DESIGN 2.12). test/db/gameColumns.test.ts checks every column lands.
 */
export function toGameRecord(r: Record<string, any>): GameRecord {
  return {
    id: r.id, kind: r.kind, createdBy: r.created_by, whiteId: r.white_id, blackId: r.black_id, colorPreference: r.color_preference,
    status: r.status, result: r.result, winner: r.winner, termination: r.termination, abortReason: r.abort_reason,
    timeControl: r.time_control, daysPerMove: r.days_per_move, moveDeadline: r.move_deadline, initialTime: r.initial_time,
    increment: r.increment, rated: r.rated, fen: r.fen, pgn: r.pgn, moveCount: r.move_count, whiteTimeMs: r.white_time_ms,
    blackTimeMs: r.black_time_ms, clockRunning: r.clock_running, turnStartedAt: r.turn_started_at, firstMoveDeadline: r.first_move_deadline,
    whiteRating: r.white_rating, blackRating: r.black_rating, whiteRatingChange: r.white_rating_change, blackRatingChange: r.black_rating_change,
    roomState: r.room_state, eventSeq: r.event_seq, host: r.host, hostEpoch: r.host_epoch, leaseExpiresAt: r.lease_expires_at,
    expiresAt: r.expires_at, createdAt: r.created_at,
    // A move writes last_move_at only, so that its update stays heap-only (migration 016).
    updatedAt: r.last_move_at && r.updated_at && r.last_move_at > r.updated_at ? r.last_move_at : r.updated_at,
    startedAt: r.started_at, finishedAt: r.finished_at, lastMoveAt: r.last_move_at, tournamentId: r.tournament_id,
    rematchOf: r.rematch_of,
  };
}

export const PLAYER_COLUMNS = (alias: 'w' | 'b') =>
  `${alias}.id AS ${alias}_id, ${alias}.username AS ${alias}_username, ${alias}.avatar_url AS ${alias}_avatar_url, ${alias}.country AS ${alias}_country, ${alias}.bot AS ${alias}_bot`;

/** A game row with both players' profiles joined (`w_*`, `b_*`, as PLAYER_COLUMNS names them). */
export function withPlayers(r: Record<string, any>): GameWithPlayers {
  const game = toGameRecord(r) as GameWithPlayers;
  game.white = r.w_id ? { id: r.w_id, username: r.w_username, avatarUrl: r.w_avatar_url, country: r.w_country, bot: r.w_bot === true } : null;
  game.black = r.b_id ? { id: r.b_id, username: r.b_username, avatarUrl: r.b_avatar_url, country: r.b_country, bot: r.b_bot === true } : null;
  return game;
}

/** A game row with both players' profiles joined (`w_*`, `b_*`): the columns and the FROM clause. */
export const WITH_PLAYERS_COLUMNS = `g.*, ${PLAYER_COLUMNS('w')}, ${PLAYER_COLUMNS('b')}`;
export const WITH_PLAYERS_FROM = `FROM games g LEFT JOIN users w ON w.id = g.white_id LEFT JOIN users b ON b.id = g.black_id`;
