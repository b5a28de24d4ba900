import type { Presence } from '@colyseus/core';

/**
 * Realtime events between processes, over Colyseus presence (Redis pub/sub when REDIS_URL is
 * set, in process otherwise). The channels, and what each carries, are named in
 * src/services/channelEvents.ts.
 */

declare const carries: unique symbol;
/** A bus channel's name, with the type of the events it carries: a channel is only made by a cast. */
export type Channel<Event> = string & { readonly [carries]: Event };

export type EventBus = {
  /** The event must be of the channel's type: a `game:` channel takes a game's events, and so on. */
  publish<Event>(channel: Channel<Event>, event: NoInfer<Event>): void;
  /** Publishes text that is already JSON (serialised once, relayed as is). */
  publishRaw(channel: string, json: string): void;
  /** Events as published by any process: of the channel's type, as far as every publisher is ours. */
  subscribe<Event>(channel: Channel<Event>, listener: (event: Event) => void): Promise<() => void>;
  /** The published JSON text as it came, for relaying to many sockets without parsing it each time. */
  subscribeRaw(channel: string, listener: (json: string) => void): Promise<() => void>;
  /** Connects the bus to the matchmaker's presence once the server has set it up. */
  attach(presence: Presence): void;
};

export function createEventBus(): EventBus {
  let presence: Presence | undefined;
  const subscribeRaw = async (channel: string, listener: (json: string) => void) => {
    if (!presence) throw new Error('event bus used before the server started');
    // Publishers hand presence a JSON string (RedisPresence carries it as such), so it arrives as one.
    const callback = (message: unknown) => listener(typeof message === 'string' ? message : JSON.stringify(message));
    await presence.subscribe(channel, callback);
    return () => quietly(presence?.unsubscribe(channel, callback));
  };
  return {
    publish(channel, event) {
      quietly(presence?.publish(channel, JSON.stringify(event)));
    },
    publishRaw(channel, json) {
      quietly(presence?.publish(channel, json));
    },
    subscribe: (channel, listener) => subscribeRaw(channel, (json) => listener(JSON.parse(json))),
    subscribeRaw,
    attach(p) {
      presence = p;
    },
  };
}

/**
 * Presence calls are fire-and-forget here: RedisPresence's are promises that reject while Redis is
 * away, and an unhandled rejection would stop the process. Redis pub/sub is at most once anyway;
 * the stream repairs what it misses (src/realtime/gameWatch.ts).
 */
function quietly(result: unknown): void {
  if (result instanceof Promise) result.catch(() => {});
}
