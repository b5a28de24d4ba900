import type { AppContext } from '../context.ts';
import { channels } from '../events.ts';

type Who = { id: string; username: string };

/**
 * Personal events, published on the `user:<id>` channel of every node (DESIGN 2.6): the realtime
 * channel relays them to the user's sockets (with `channel`), the lobby room reacts to some. Each
 * carries `type` and `ts`. The later areas (friends, clubs, tournaments) add their types here and
 * publish with `notifyUser`.
 */
export type UserEvent =
  | { type: 'challenge_received'; game_id: string; from: Who }
  | { type: 'challenge_declined'; game_id: string; by: Who }
  | { type: 'challenge_cancelled'; game_id: string; by: Who }
  | { type: 'challenge_expired'; game_id: string }
  /** A challenge was accepted or a seek paired: the game is on (`seek_id` when it came from that seek). */
  | { type: 'game_started'; game_id: string; seek_id?: string }
  /** DESIGN 2.10: someone asked to be the user's friend / accepted the user's request. */
  | { type: 'friend_request'; from: Who }
  | { type: 'friend_accepted'; user: Who }
  /** DESIGN 2.10: the owner of a club invited the user. */
  | { type: 'club_invite'; club: { id: string; name: string }; invited_by: Who }
  /** DESIGN 2.10: a tournament the user joined started. */
  | { type: 'tournament_started'; tournament: { id: string; name: string; starts_at: string } }
  /** DESIGN 2.10: the user was paired in a tournament; the game is active, both seated: join it. */
  | { type: 'tournament_pairing'; tournament_id: string; game_id: string; color: 'white' | 'black'; opponent: Who }
  /** The lobby room reloads the user's pending challenges on this. */
  | { type: 'challenges_changed' }
  /**
   * Internal (never relayed): a session of the user ended (logout, refresh-token reuse), or all of
   * them (`session_id` null: a password change). Sockets subscribed under it are told UNAUTHORIZED.
   */
  | { type: 'session_revoked'; session_id: string | null };

export type UserEventType = UserEvent['type'];

/** Event types that stay inside the service. */
export const INTERNAL_USER_EVENTS: ReadonlySet<UserEventType> = new Set(['session_revoked', 'challenges_changed']);

export type UserNotifier = (userId: string, event: UserEvent) => void;

/** The one way to tell a user something wherever their sockets are connected. */
export function userNotifier(ctx: Pick<AppContext, 'events' | 'clock'>): UserNotifier {
  return (userId, event) => ctx.events.publish(channels.user(userId), { ...event, ts: ctx.clock.now() });
}
