import type { AppContext } from '../context.ts';
import { channels, type UserEvent } from './channelEvents.ts';

export type UserEventType = UserEvent['type'];

/**
 * Event types that stay inside the service: sockets are not sent them, but a surface of the
 * service's own may hear them (Lichess's event stream: UserChannelRequest.internal).
 */
export const INTERNAL_USER_EVENT_TYPES = ['challenges_changed', 'game_finished'] as const satisfies readonly UserEventType[];
export type InternalUserEventType = (typeof INTERNAL_USER_EVENT_TYPES)[number];
export const INTERNAL_USER_EVENTS: ReadonlySet<UserEventType> = new Set(INTERNAL_USER_EVENT_TYPES);

export type UserNotifier = (userId: string, event: UserEvent) => void;

/** The one way to tell a user something wherever their sockets are connected. */
export function userNotifier(ctx: Pick<AppContext, 'events' | 'clock'>): UserNotifier {
  return (userId, event) => ctx.events.publish(channels.user(userId), { ...event, ts: ctx.clock.now() });
}
