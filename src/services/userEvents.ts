import type { AppContext } from '../context.ts';
import { channels, type UserEvent } from './channelEvents.ts';

export type UserEventType = UserEvent['type'];

/** Event types that stay inside the service. */
export const INTERNAL_USER_EVENTS: ReadonlySet<UserEventType> = new Set(['session_revoked', 'challenges_changed']);

export type UserNotifier = (userId: string, event: UserEvent) => void;

/** The one way to tell a user something wherever their sockets are connected. */
export function userNotifier(ctx: Pick<AppContext, 'events' | 'clock'>): UserNotifier {
  return (userId, event) => ctx.events.publish(channels.user(userId), { ...event, ts: ctx.clock.now() });
}
