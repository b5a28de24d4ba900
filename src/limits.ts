import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from './errors.ts';

/**
 * Builds fixed-window counters: in Redis when the service runs as many processes (so every
 * node counts together), in memory for a single node. The window opens with the first
 * counted request and lasts `durationSeconds`.
 */
export type LimiterFactory = (name: string, points: number, durationSeconds: number) => RateLimiterAbstract;

export function limiterFactory(redis: Redis | undefined): LimiterFactory {
  return (name, points, duration) =>
    redis
      ? new RateLimiterRedis({ storeClient: redis, keyPrefix: `rl:${name}`, points, duration, rejectIfRedisNotReady: false })
      : new RateLimiterMemory({ keyPrefix: `rl:${name}`, points, duration });
}

/** Class limits per minute (DESIGN 2.3); per-operation limits replace them. */
export const CLASS_LIMITS = { auth: 5, read: 100, write: 30 } as const;
/**
 * Per-operation limits per minute, for REST and sockets alike (a socket seek counts as a REST
 * one). `seekAddress` caps the socket seeks of one client address, whatever accounts it uses.
 * Friend requests and club invitations reach other people: they get a lower limit than the
 * write class, against spam.
 */
export const OPERATION_LIMITS = {
  matchmaking: 10,
  challenge: 5,
  makeMove: 100,
  // A puzzle step is a move on the board, so it counts as a game's moves do.
  puzzleStep: 100,
  getGame: 60,
  seekAddress: 30,
  friendRequest: 10,
  clubInvite: 10,
  // Chat has its own counter so that talking does not eat the write class; its real pace (one a
  // second, three at once, 30 a game) is the chat service's (src/services/chat.ts).
  chat: 60,
  // A password or email change checks the password: as few tries as a login.
  accountChange: 5,
} as const;
export type OperationLimit = keyof typeof OPERATION_LIMITS;
const WINDOW_SECONDS = 60;

export type LimitState = { limited: boolean; limit: number; remaining: number; resetMs: number; retryAfter: number };

/**
 * The per-minute limits of DESIGN 2.3, one counter per limit name shared by every caller (REST
 * routes, pages, room joins), keyed `u:<user id>` or `a:<address>`. RATE_LIMITS=off turns them off.
 */
export type RateLimits = {
  enabled: boolean;
  /** Counts one request of `key` against the limit `name` of `points` per minute. */
  consume: (name: string, points: number, key: string) => Promise<LimitState>;
  /** Counts one operation; throws RATE_LIMIT_EXCEEDED (with retryAfter) when over. */
  take: (operation: OperationLimit, key: string) => Promise<void>;
};

export function createRateLimits(enabled: boolean, makeLimiter: LimiterFactory, now: () => number = Date.now): RateLimits {
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterFor = (name: string, points: number) => {
    let l = limiters.get(name);
    if (!l) limiters.set(name, (l = makeLimiter(name, points, WINDOW_SECONDS)));
    return l;
  };
  async function consume(name: string, points: number, key: string): Promise<LimitState> {
    let state: RateLimiterRes;
    let limited = false;
    try {
      state = await limiterFor(name, points).consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      state = rejection;
      limited = true;
    }
    return {
      limited,
      limit: points,
      remaining: Math.max(0, state.remainingPoints),
      resetMs: now() + state.msBeforeNext,
      retryAfter: Math.max(1, Math.ceil(state.msBeforeNext / 1000)),
    };
  }
  return {
    enabled,
    consume,
    async take(operation, key) {
      if (!enabled) return;
      const state = await consume(operation, OPERATION_LIMITS[operation], key);
      if (state.limited) throw rateLimitExceeded(state);
    },
  };
}

export const rateLimitExceeded = (state: LimitState) =>
  new AppError('RATE_LIMIT_EXCEEDED', 'Too many requests', undefined, { retryAfter: state.retryAfter });
