// What a process stands on before it serves anything: PostgreSQL (embedded without DATABASE_URL)
// migrated and loaded, Redis when configured, and Colyseus's presence and driver to match.
import { LocalDriver, LocalPresence, type MatchMakerDriver, type Presence } from '@colyseus/core';
import { RedisPresence } from '@colyseus/redis-presence';
import { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { startEmbeddedPostgres } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';
import { createPool, type Pool } from '../db/pool.ts';
import { relistRooms } from '../gateway/index.ts';
import { OwnListingsDriver } from '../gateway/listings.ts';
import type { Logger } from '../logger.ts';
import { loadBundledPuzzles } from '../services/puzzleImport.ts';

/** Undo steps, run last-added first: what was started later is stopped earlier. */
export class Teardown {
  private readonly steps: Array<() => Promise<unknown>> = [];

  add(step: () => Promise<unknown>): void {
    this.steps.unshift(step);
  }

  /** Runs every step, each failure passed to `failed` without stopping the others. */
  async run(failed: (err: unknown) => void): Promise<void> {
    for (const step of this.steps) await step().catch(failed);
  }
}

export type Storage = {
  /** The configured database, or the embedded one's. */
  databaseUrl: string;
  pool: Pool;
  /** The tournament actors' own few connections: a round never waits behind a burst of requests. */
  tournamentPool: Pool;
  redis: Redis | undefined;
};

/** Opens the database (migrated, bundled puzzles loaded) and Redis; each adds its undo to `teardown`. */
export async function bootStorage(config: Config, log: Logger, teardown: Teardown): Promise<Storage> {
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    const embedded = await startEmbeddedPostgres(`${config.dataDir}/pg`, log);
    teardown.add(embedded.stop);
    databaseUrl = embedded.url;
  }
  // A statement still running after a third of the game lease is stuck: cancel it, so this
  // node gives its games up (src/services/liveGameHost.ts) well before their leases lapse.
  const pool = createPool(databaseUrl, 20, { statementTimeoutMs: Math.min(5000, Math.round(config.gameLeaseMs / 3)) });
  teardown.add(() => pool.end());
  const tournamentPool = createPool(databaseUrl, 3, { statementTimeoutMs: Math.min(5000, Math.round(config.gameLeaseMs / 3)) });
  teardown.add(() => tournamentPool.end());
  const applied = await migrate(pool);
  if (applied.length) log.info({ applied }, 'migrations applied');
  // Data the migrations cannot carry as SQL: the bundled puzzles, once per database.
  await loadBundledPuzzles(pool, log);

  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false }) : undefined;
  if (redis) {
    redis.on('error', (err) => log.warn({ err: err.message }, 'redis error'));
    teardown.add(() => redis.quit());
  }
  return { databaseUrl, pool, tournamentPool, redis };
}

/**
 * Colyseus's presence and matchmaker driver: in memory for one node, else on Redis clients of our
 * own. A command to an unreachable Redis fails after two retries (a 503 for the request) instead
 * of waiting ten seconds; connection errors are logged, not printed unhandled; and when Redis
 * comes back (restarted, possibly empty) this node lists its rooms and its load again, so that
 * the other nodes find its games and send it rooms to create.
 */
export function clusterParts(config: Config, log: Logger): { presence: Presence; driver: MatchMakerDriver } {
  if (!config.redisUrl) return { presence: new LocalPresence(), driver: new LocalDriver() };
  const client = (name: string) => {
    const redis = new Redis(config.redisUrl!, { maxRetriesPerRequest: 2 });
    redis.on('error', (err) => log.warn({ err: err.message, client: name }, 'redis error'));
    return redis;
  };
  const listings = client('driver');
  let lost = false;
  listings.on('close', () => (lost = true));
  listings.on('ready', () => {
    if (!lost) return;
    lost = false;
    relistRooms().then(
      () => log.info('redis is back: this node listed its rooms again'),
      (err) => log.warn({ err }, 'could not list the rooms again'),
    );
  });
  return { presence: new RedisPresence(client('presence')), driver: new OwnListingsDriver(listings) };
}
