import { listPendingChallenges, type PendingChallenge } from '../db/games.ts';
import type { Queryable } from '../db/pool.ts';
import { listOpenSeeks, type OpenSeek } from '../db/seeks.ts';

/** What the lobby room reads: the open seeks, and a player's pending challenges. */
export type LobbyReads = {
  openSeeks(): Promise<OpenSeek[]>;
  pendingChallenges(userId: string): Promise<PendingChallenge[]>;
};

export function lobbyReads(db: Queryable): LobbyReads {
  return { openSeeks: () => listOpenSeeks(db), pendingChallenges: (userId) => listPendingChallenges(db, userId) };
}

/** An open seek as the lobby shows it. */
export type SeekView = {
  id: string;
  user: { id: string; username: string; rating: number };
  time_control: string;
  initial_time: number;
  increment: number;
  rated: boolean;
  color: string;
  created_at: string;
  expires_at: string;
};

export function formatSeek(s: OpenSeek): SeekView {
  return {
    id: s.id,
    user: { id: s.userId, username: s.username, rating: s.rating },
    time_control: s.pool.timeControl,
    initial_time: s.pool.initialTime,
    increment: s.pool.increment,
    rated: s.pool.rated,
    color: s.color,
    created_at: s.createdAt.toISOString(),
    expires_at: s.expiresAt.toISOString(),
  };
}

/** Events on the `lobby:seeks` channel (src/services/channelEvents.ts). */
export type LobbyEvent =
  | { type: 'seek_added'; seek: SeekView }
  | { type: 'seek_removed'; id: string; reason: 'paired' | 'cancelled' | 'expired' };


/** A pending challenge as the lobby shows it to one of its two players. */
export type ChallengeView = {
  id: string;
  from: { id: string; username: string };
  to: { id: string; username: string };
  time_control: string;
  initial_time: number;
  increment: number;
  rated: boolean;
  /** The challenger's colour as asked: white, black or random. */
  color: string;
  expires_at: string;
  direction: 'incoming' | 'outgoing';
};

export function formatChallenge(c: PendingChallenge, viewerId: string): ChallengeView {
  return {
    id: c.id,
    from: c.from,
    to: c.to,
    time_control: c.timeControl,
    initial_time: c.initialTime,
    increment: c.increment,
    rated: c.rated,
    color: c.colorPreference,
    expires_at: c.expiresAt.toISOString(),
    direction: c.from.id === viewerId ? 'outgoing' : 'incoming',
  };
}
