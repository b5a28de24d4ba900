import type { Redis } from 'ioredis';
import type { Config } from './config.ts';
import type { EventBus } from './events.ts';
import type { Pool } from './db/pool.ts';
import type { LimiterFactory, RateLimits } from './limits.ts';
import type { Logger } from './logger.ts';
import type { Clock } from './time.ts';

/** What every service is built from: configuration and the connections of this process. */
export type AppContext = {
  config: Config;
  log: Logger;
  pool: Pool;
  /** Present when REDIS_URL is set: shared counters for all processes. */
  redis: Redis | undefined;
  makeLimiter: LimiterFactory;
  /** The per-minute limits of DESIGN 2.3, shared by REST routes, pages and room joins. */
  limits: RateLimits;
  /** Realtime events to every process (presence pub/sub); usable once the server listens. */
  events: EventBus;
  /** Every deadline, timer and timestamp of the service reads this clock (tests pass a manual one). */
  clock: Clock;
};
