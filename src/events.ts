import type { Presence } from '@colyseus/core';

/**
 * Realtime events between processes, over Colyseus presence (Redis pub/sub when REDIS_URL is
 * set, in process otherwise). Channels: `game:<id>` (a live game's events, DESIGN 2.6),
 * `user:<id>` (personal: pairing, challenges), `lobby:seeks` (open seeks appearing and going).
 */
export const channels = {
  game: (gameId: string) => `game:${gameId}`,
  user: (userId: string) => `user:${userId}`,
  lobby: 'lobby:seeks',
} as const;

export type EventBus = {
  publish(channel: string, event: object): void;
  subscribe(channel: string, listener: (event: any) => void): Promise<() => void>;
  /** Connects the bus to the matchmaker's presence once the server has set it up. */
  attach(presence: Presence): void;
};

export function createEventBus(): EventBus {
  let presence: Presence | undefined;
  return {
    publish(channel, event) {
      void presence?.publish(channel, JSON.stringify(event));
    },
    async subscribe(channel, listener) {
      if (!presence) throw new Error('event bus used before the server started');
      const callback = (message: unknown) => listener(typeof message === 'string' ? JSON.parse(message) : message);
      await presence.subscribe(channel, callback);
      return () => void presence?.unsubscribe(channel, callback);
    },
    attach(p) {
      presence = p;
    },
  };
}
