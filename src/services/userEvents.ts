import type { AppContext } from '../context.ts';
import { channels, type UserEvent } from './channelEvents.ts';

export type UserEventType = UserEvent['type'];

/** Event types that stay inside the service. */
export const INTERNAL_USER_EVENT_TYPES = ['challenges_changed'] as const satisfies readonly UserEventType[];
export type InternalUserEventType = (typeof INTERNAL_USER_EVENT_TYPES)[number];
export const INTERNAL_USER_EVENTS: ReadonlySet<UserEventType> = new Set(INTERNAL_USER_EVENT_TYPES);

export type UserNotifier = (userId: string, event: UserEvent) => void;

/** The one way to tell a user something wherever their sockets are connected. */
export function userNotifier(ctx: Pick<AppContext, 'events' | 'clock'>): UserNotifier {
  return (userId, event) => ctx.events.publish(channels.user(userId), { ...event, ts: ctx.clock.now() });
}
