import assert from 'node:assert/strict';
import type { Config } from '../../src/config.ts';
import type { Pool } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import type { Clock } from '../../src/time.ts';
import type { NumberedEvent } from '../../src/domain/liveGameViews.ts';
import type { Result } from '../../src/result.ts';
import { GameActor } from '../../src/services/gameActor.ts';
import { LiveGameHost, type Publish } from '../../src/services/liveGameHost.ts';
import { insertActiveGame, insertUser } from '../support/fixtures.ts';
import { testService } from './service.ts';

/**
 * Two players and an active game in `pool` (an isolated database), and a factory of hosts with
 * identities of their own, so a test can play several nodes owning or losing the game.
 */
export async function liveGameFixture(pool: Pool, game: Parameters<typeof insertActiveGame>[3] = {}, config: Partial<Config> = {}) {
  const service = await testService();
  const host = (name: string, clock?: Clock, publish?: Publish) =>
    new LiveGameHost(pool, { ...service.config, ...config }, createLogger('silent'), name, clock, publish);
  const white = await insertUser(pool);
  const black = await insertUser(pool);
  const gameId = await insertActiveGame(pool, white, black, game);
  return { pool, host, white, black, gameId };
}

/** What a test hears of each game it opened, as the game's room would (its GameListener). */
const ears = new WeakMap<GameActor, { events: Set<(event: NumberedEvent) => void>; lost: Set<() => void> }>();

/** Opens the game on `host`, failing the test when it cannot be hosted there. */
export async function openLiveGame(host: LiveGameHost, gameId: string): Promise<GameActor> {
  const heard = { events: new Set<(event: NumberedEvent) => void>(), lost: new Set<() => void>() };
  const live = await GameActor.open(host, gameId, {
    event: (event) => heard.events.forEach((hear) => hear(event)),
    lost: () => heard.lost.forEach((hear) => hear()),
  });
  assert.ok(live instanceof GameActor, `could not open: ${String(live)}`);
  ears.set(live, heard);
  return live;
}

/** Hears every event the game publishes from now on, until the returned function is called. */
export function hearEvents(live: GameActor, hear: (event: NumberedEvent) => void): () => void {
  const heard = ears.get(live)!;
  heard.events.add(hear);
  return () => heard.events.delete(hear);
}

/** Hears that this node lost the game (as its room would, which then goes). */
export function hearLost(live: GameActor, hear: () => void): void {
  ears.get(live)!.lost.add(hear);
}

export const uci = (m: string) => ({ from: m.slice(0, 2), to: m.slice(2, 4), promotion: m[4] ?? undefined });

/** A move command by `userId` in UCI notation. */
export const moveBy = (userId: string, m: string, lagMs?: number) =>
  ({ type: 'move', userId, ...uci(m), ...(lagMs === undefined ? {} : { lagMs }) }) as const;

/** Counts the lease renewal rounds `host` ends from now on (they run on its clock); `reached(n)` waits for the n-th. */
export function renewalRounds(host: LiveGameHost) {
  let count = 0;
  let wake = () => {};
  host.onRenewal = () => {
    count++;
    wake();
  };
  return {
    get count() {
      return count;
    },
    async reached(n: number): Promise<void> {
      while (count < n) await new Promise<void>((resolve) => (wake = resolve));
    },
  };
}

/** The code a refused command was answered with (undefined when it was not refused). */
export const failureCode = (r: Result<unknown>) => (r.ok ? undefined : r.error.code);
