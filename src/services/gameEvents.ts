import type { Redis } from 'ioredis';
import type { AppContext } from '../context.ts';
import type { NumberedEvent } from '../domain/liveGameViews.ts';
import type { PresenceNews } from './channelEvents.ts';
import type { EventBus } from '../events.ts';
import type { Clock } from '../time.ts';
import { flat } from '../util/strings.ts';
import { channels } from './channelEvents.ts';

/**
 * The events of a game on its `game:<id>` channel (DESIGN 2.6), and a short replay buffer of them
 * shared by every node, so a stream subscriber that missed one (a lost pub/sub message, a
 * reconnect with `?since=v`) is served the missing events instead of a fresh state.
 *
 * Numbered events (`move`, `draw_offer`, `game_end`: `v` = the game's event number) go into the
 * buffer; `time_update` carries the current `v` without advancing it and is not kept. The buffer
 * is written by the node that publishes, in Redis when the service runs as many processes (one
 * list per game, trimmed and expiring), else in this process's memory.
 */
export type GameEventLog = {
  /** Publishes an event of a live game (the room's publisher) and keeps it when it is numbered. */
  publish(gameId: string, event: PublishedEvent): void;
  /**
   * The numbered events after `after`, oldest first, as published (JSON); undefined when the
   * buffer does not reach back that far (then a fresh state is the answer).
   */
  since(gameId: string, after: number): Promise<string[] | undefined>;
  /**
   * A stream of this node begins watching the game: its events are kept from now on. In memory
   * (one node) only watched games keep a buffer, since only a stream that was there can come back
   * with `?since`: a game played in rooms and streamed by nobody keeps none (its 32 events were a
   * seventh of a live game's memory). Redis keeps every game's, as a stream may be on any node.
   */
  watch(gameId: string): void;
};

/** What a live game publishes: its events with their number and time, and its players' comings and goings. */
export type PublishedEvent = NumberedEvent | PresenceNews;

/** How many numbered events of a game are kept, and how long after the last one. */
export const REPLAY_EVENTS = 32;
const REPLAY_TTL_SECONDS = 3600;
/**
 * How long a finished game's buffer outlives its game_end: long enough for a stream that dropped
 * at the end to come back with `?since` and be replayed the end, instead of holding ~14 KB per game
 * for an hour (Redis) or until 5,000 later games push it out (memory).
 */
export const FINISHED_REPLAY_MS = 5 * 60_000;
/** In memory: the most games whose buffers are kept (the oldest goes first). */
const MEMORY_GAMES = 5000;

const bufferKey = (gameId: string) => `game-events:${gameId}`;

export function createGameEventLog(o: { events: EventBus; redis: Redis | undefined; clock: Clock }): GameEventLog {
  const store = o.redis ? redisStore(o.redis) : memoryStore(o.clock);
  return {
    publish(gameId, event) {
      const json = JSON.stringify(event);
      o.events.publishRaw(channels.game(gameId), json);
      if (event.type !== 'time_update' && event.type !== 'opponent_gone' && event.type !== 'opponent_back') {
        store.append(gameId, json, event.type === 'game_end');
      }
    },
    watch: (gameId) => store.watch(gameId),
    async since(gameId, after) {
      const kept = (await store.read(gameId)).map((json) => ({ json, v: (JSON.parse(json) as PublishedEvent).v }));
      const missed = kept.filter((e) => e.v > after);
      if (missed.length === 0) return kept.some((e) => e.v === after) ? [] : undefined;
      // Complete only when it starts right after `after` and has no hole.
      return missed.every((e, i) => e.v === after + 1 + i) ? missed.map((e) => e.json) : undefined;
    },
  };
}

type ReplayStore = {
  append(gameId: string, json: string, last: boolean): void;
  read(gameId: string): Promise<string[]>;
  watch(gameId: string): void;
};

function redisStore(redis: Redis): ReplayStore {
  return {
    append(gameId, json, last) {
      const key = bufferKey(gameId);
      const ttl = last ? FINISHED_REPLAY_MS / 1000 : REPLAY_TTL_SECONDS;
      // One round trip, not awaited: the move's answer does not wait for the replay buffer.
      void redis.multi().rpush(key, json).ltrim(key, -REPLAY_EVENTS, -1).expire(key, ttl).exec().catch(() => {});
    },
    read: (gameId) => redis.lrange(bufferKey(gameId), 0, -1),
    watch: () => {},
  };
}

function memoryStore(clock: Clock): ReplayStore {
  const games = new Map<string, string[]>();
  // Finished games in the order they ended, i.e. of their drop times: swept from the front as the
  // store is used, so no timer runs per game.
  const finished: { gameId: string; dropAt: number }[] = [];
  const keep = (gameId: string, kept: string[]) => {
    games.delete(gameId); // re-inserted last: the map's order is the order of last use
    games.set(gameId, kept);
    if (games.size > MEMORY_GAMES) games.delete(games.keys().next().value!);
  };
  const sweep = () => {
    const now = clock.now();
    let n = 0;
    while (n < finished.length && finished[n].dropAt <= now) games.delete(finished[n++].gameId);
    if (n > 0) finished.splice(0, n);
  };
  return {
    append(gameId, json, last) {
      sweep();
      const kept = games.get(gameId);
      if (!kept) return; // nobody streams it here
      if (last) finished.push({ gameId, dropAt: clock.now() + FINISHED_REPLAY_MS });
      // Kept as one flat string: JSON.stringify's rope of ~30-character pieces costs several
      // times the text, 32 times a game.
      kept.push(flat(json));
      if (kept.length > REPLAY_EVENTS) kept.shift();
      keep(gameId, kept);
    },
    watch(gameId) {
      sweep();
      keep(gameId, games.get(gameId) ?? []);
    },
    read: async (gameId) => {
      sweep();
      return games.get(gameId) ?? [];
    },
  };
}

/**
 * A pending game became active (accepted, paired) or was abandoned (declined, cancelled, expired):
 * its stream subscribers (its players) are sent a fresh state. Not numbered: the game's events
 * begin with its room.
 */
export function gameStatusChanged(ctx: Pick<AppContext, 'events' | 'clock'>, gameId: string, status: 'active' | 'abandoned'): void {
  ctx.events.publish(channels.game(gameId), { type: 'status', status, ts: ctx.clock.now() });
}
