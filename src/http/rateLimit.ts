import type { Request, Response } from 'express';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../errors.ts';
import type { LimiterFactory } from '../limits.ts';
import type { AuthUser } from '../context.ts';
import { OPERATION_LIMITS, type Route } from './route.ts';

/** Class limits per minute (DESIGN 2.3); per-operation limits replace them. */
export const CLASS_LIMITS = { auth: 5, read: 100, write: 30 } as const;
const WINDOW_SECONDS = 60;

export function limitNameOf(r: Route, req: Request): { name: string; points: number } {
  const operation = typeof r.limit === 'function' ? r.limit(req) : r.limit;
  if (operation) return { name: operation, points: OPERATION_LIMITS[operation] };
  if (r.path.startsWith('/auth/')) return { name: 'auth', points: CLASS_LIMITS.auth };
  if (r.method === 'get') return { name: 'read', points: CLASS_LIMITS.read };
  return { name: 'write', points: CLASS_LIMITS.write };
}

/**
 * The rate-limit step of every API route: keyed by user when the request carries a valid token,
 * else by client address (`TRUST_PROXY` decides whether X-Forwarded-For counts).
 */
export function createRateLimit(enabled: boolean, makeLimiter: LimiterFactory) {
  const limiters = new Map<string, RateLimiterAbstract>();
  const limiterFor = (name: string, points: number) => {
    let l = limiters.get(name);
    if (!l) limiters.set(name, (l = makeLimiter(name, points, WINDOW_SECONDS)));
    return l;
  };

  return async function rateLimit(req: Request, res: Response, r: Route, user: AuthUser | undefined): Promise<void> {
    if (!enabled) return;
    const { name, points } = limitNameOf(r, req);
    const key = user ? `u:${user.id}` : `a:${req.ip ?? 'unknown'}`;
    let state: RateLimiterRes;
    let limited = false;
    try {
      state = await limiterFor(name, points).consume(key);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      state = rejection;
      limited = true;
    }
    const resetMs = Date.now() + state.msBeforeNext;
    res.setHeader('X-RateLimit-Limit', String(points));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, state.remainingPoints)));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(resetMs / 1000)));
    if (limited) {
      const retryAfter = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
      throw new AppError('RATE_LIMIT_EXCEEDED', 'Too many requests', undefined, { retryAfter });
    }
  };
}
