import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../errors.ts';
import type { LimiterFactory } from '../limits.ts';
import type { LoginIdentifier } from './rules.ts';

/** DESIGN 2.2: 5 failures per account, or 20 per client address, within 5 minutes. */
export type LoginLimits = { perAccount: number; perAddress: number; windowSeconds: number };
export const LOGIN_LIMITS: Readonly<LoginLimits> = { perAccount: 5, perAddress: 20, windowSeconds: 300 };

/**
 * Whose attempt it is: the account the typed identifier resolved to (by email or username, in
 * any spelling the lookup takes, or the signed-in user checking their own password), else the
 * identifier that resolved to none, in its normal form. An unknown name is throttled like an
 * account, so the answers do not tell whether one exists.
 */
export type LoginSubject = { userId: string } | { unknown: LoginIdentifier };
const subjectKey = (s: LoginSubject) => ('userId' in s ? `user:${s.userId}` : `${s.unknown.kind}:${s.unknown.key}`);

export type LoginThrottle = {
  /**
   * Reserves one attempt for this subject and address, or throws TOO_MANY_ATTEMPTS (with
   * `retryAfter`) while either is throttled. The reservation counts as a failure unless the
   * returned `release` is called (after the password proved right).
   */
  reserve: (subject: LoginSubject, address: string) => Promise<() => Promise<void>>;
};

type Counter = { limiter: RateLimiterAbstract; key: string };
type Taken = { counter: Counter; rejected: RateLimiterRes | undefined };

/**
 * Guessing passwords is throttled whatever RATE_LIMITS says. An attempt is counted before the
 * password is checked (an atomic increment), so a burst of parallel guesses cannot all slip in
 * before the first failure is recorded; successes and refused attempts are handed back, so only
 * failures count, and a 429 does not prolong the wait.
 */
export function createLoginThrottle(makeLimiter: LimiterFactory, limits: LoginLimits = LOGIN_LIMITS): LoginThrottle {
  const byAccount = makeLimiter('login-account', limits.perAccount, limits.windowSeconds);
  const byAddress = makeLimiter('login-address', limits.perAddress, limits.windowSeconds);

  async function take(counter: Counter): Promise<Taken> {
    try {
      await counter.limiter.consume(counter.key);
      return { counter, rejected: undefined };
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return { counter, rejected: rejection };
      throw rejection;
    }
  }
  const giveBack = (counters: Counter[]) => Promise.all(counters.map((c) => c.limiter.reward(c.key, 1))).then(() => {});

  return {
    async reserve(subject, address) {
      const counters = [
        { limiter: byAccount, key: subjectKey(subject) },
        { limiter: byAddress, key: address },
      ];
      const taken = await Promise.all(counters.map(take));
      const rejected = taken.flatMap((t) => (t.rejected ? [t.rejected] : []));
      if (rejected.length > 0) {
        await giveBack(counters);
        const retryAfter = Math.max(1, ...rejected.map((r) => Math.ceil(r.msBeforeNext / 1000)));
        throw new AppError('TOO_MANY_ATTEMPTS', 'Too many failed login attempts; try again later', undefined, { retryAfter });
      }
      return () => giveBack(counters);
    },
  };
}
