import type { Request, Response } from 'express';
import type { AuthUser } from '../auth/scopes.ts';
import { CLASS_LIMITS, OPERATION_LIMITS, rateLimitExceeded, type RateLimits } from '../limits.ts';
import type { Route } from './route.ts';

export { CLASS_LIMITS };

export function limitNameOf(r: Route, req: Request): { name: string; points: number } {
  const operation = typeof r.limit === 'function' ? r.limit(req) : r.limit;
  if (operation) return { name: operation, points: OPERATION_LIMITS[operation] };
  if (r.path.startsWith('/auth/')) return { name: 'auth', points: CLASS_LIMITS.auth };
  if (r.method === 'get') return { name: 'read', points: CLASS_LIMITS.read };
  return { name: 'write', points: CLASS_LIMITS.write };
}

/** How a request is keyed: by user when it carries a valid token, else by client address. */
export const limitKey = (user: AuthUser | undefined, address: string | undefined) => (user ? `u:${user.id}` : `a:${address ?? 'unknown'}`);

/**
 * The rate-limit step of every API route: keyed by user when the request carries a valid token,
 * else by client address (`TRUST_PROXY` decides whether X-Forwarded-For counts).
 */
export function createRateLimit(limits: RateLimits) {
  return async function rateLimit(req: Request, res: Response, r: Route, user: AuthUser | undefined): Promise<void> {
    if (!limits.enabled) return;
    const { name, points } = limitNameOf(r, req);
    const state = await limits.consume(name, points, limitKey(user, req.ip));
    res.setHeader('X-RateLimit-Limit', String(state.limit));
    res.setHeader('X-RateLimit-Remaining', String(state.remaining));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil(state.resetMs / 1000)));
    if (state.limited) throw rateLimitExceeded(state);
  };
}
