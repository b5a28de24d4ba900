import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';

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
