import type { Redis } from 'ioredis';
import type { Scope } from './auth/scopes.ts';
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

/**
 * The caller of a request or socket: from a verified access token of a live session, or from a
 * personal access token (DESIGN 2.12). `sessionId` is what a revocation names: the session, or
 * the personal token's id. `scopes` is set only for a personal token (src/auth/scopes.ts).
 * `expiresAt` (ms): when the credential stops working (the access token's `exp` or the session's
 * absolute end, whichever is first; a personal token's `expires_at`), absent when it never does;
 * a socket opened with it closes then (src/services/liveCredentials.ts).
 */
export type AuthUser = { id: string; email: string; sessionId: string; scopes?: readonly Scope[]; expiresAt?: number };
