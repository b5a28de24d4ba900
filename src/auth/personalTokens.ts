import { randomBytes } from 'node:crypto';
import type { Pool } from '../db/pool.ts';
import { findPersonalTokenByHash, isPersonalTokenLive, touchPersonalToken, type LivePersonalToken } from '../db/personalTokens.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { SCOPES, type Scope, type AuthUser } from './scopes.ts';
import { hashToken } from './tokens.ts';

/** Every personal access token starts so: a server tells it from a JWT without trying both. */
export const PERSONAL_TOKEN_PREFIX = 'cst_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_BYTES = 32;
/** 62^43 > 2^256: 43 digits hold any 32 bytes, so every token has the same length. */
const SECRET_DIGITS = 43;

/** `cst_` + 32 random bytes in base62 (256 bits). */
export function newPersonalToken(): string {
  let n = BigInt(`0x${randomBytes(SECRET_BYTES).toString('hex')}`);
  let digits = '';
  while (n > 0n) {
    digits = BASE62[Number(n % 62n)] + digits;
    n /= 62n;
  }
  return PERSONAL_TOKEN_PREFIX + digits.padStart(SECRET_DIGITS, '0');
}

export const isPersonalToken = (token: string): boolean => token.startsWith(PERSONAL_TOKEN_PREFIX);

/** A minute's worth of milliseconds: `last_used_at` is kept to the minute. */
const MINUTE_MS = 60_000;

type Entry = { token: LivePersonalToken; expiresAtMs: number };

/**
 * Personal tokens this process has looked up, by hash, under the same rules as the session cache
 * (src/auth/sessionCache.ts): revocations reach it over the same channel (a token's id is what
 * they name), a read begun before a revocation is not stored, and an untrusted cache answers
 * nothing. An entry lapses after `ttlMs` and at the token's expiry.
 */
export type PersonalTokenCache = {
  get: (tokenHash: string) => LivePersonalToken | undefined;
  begin: () => (tokenHash: string, token: LivePersonalToken) => void;
  revoke: (userId: string, tokenId: string | null) => void;
  setTrusted: (trusted: boolean) => void;
};

export function createPersonalTokenCache(o: { ttlMs: number; now: () => number; maxEntries?: number }): PersonalTokenCache {
  const maxEntries = o.maxEntries ?? 50_000;
  const entries = new Map<string, Entry>();
  let generation = 0;
  let trusted = true;
  return {
    get(tokenHash) {
      if (!trusted) return undefined;
      const entry = entries.get(tokenHash);
      if (!entry) return undefined;
      if (o.now() >= entry.expiresAtMs) {
        entries.delete(tokenHash);
        return undefined;
      }
      return entry.token;
    },
    begin() {
      const started = generation;
      return (tokenHash, token) => {
        if (!trusted || o.ttlMs <= 0 || generation !== started) return;
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
        const endsAt = token.expiresAt ? token.expiresAt.getTime() : Infinity;
        entries.set(tokenHash, { token, expiresAtMs: Math.min(o.now() + o.ttlMs, endsAt) });
      };
    },
    revoke(userId, tokenId) {
      generation++;
      // Revocations are rare (a token deleted, a password reset, a logout): a scan is fine.
      for (const [hash, entry] of entries) {
        if (entry.token.userId === userId && (tokenId === null || entry.token.id === tokenId)) entries.delete(hash);
      }
    },
    setTrusted(value) {
      trusted = value;
      entries.clear();
      generation++;
    },
  };
}

export type PersonalTokenAuth = {
  /** The caller of a personal token that exists and has not expired, else UNAUTHORIZED. */
  authenticate: (token: string) => Promise<AuthUser>;
  /** Whether the token of this id still exists and has not expired. */
  isLive: (tokenId: string) => Promise<boolean>;
};

export function createPersonalTokenAuth(o: { pool: Pool; cache: PersonalTokenCache; now: () => number; log: Logger }): PersonalTokenAuth {
  // The minute each token's use was last written from this process: at most one write a minute.
  const written = new Map<string, number>();

  async function lookup(tokenHash: string): Promise<LivePersonalToken | undefined> {
    const cached = o.cache.get(tokenHash);
    if (cached) return cached;
    const store = o.cache.begin();
    const found = await findPersonalTokenByHash(o.pool, tokenHash);
    if (found) store(tokenHash, found);
    return found;
  }

  async function recordUse(token: LivePersonalToken): Promise<void> {
    const minute = Math.floor(o.now() / MINUTE_MS) * MINUTE_MS;
    const last = Math.max(written.get(token.id) ?? 0, token.lastUsedAt?.getTime() ?? 0);
    if (last >= minute) return;
    if (written.size >= 100_000) written.clear();
    written.set(token.id, minute);
    await touchPersonalToken(o.pool, token.id, new Date(minute)).catch((err: Error) =>
      o.log.warn({ err: err.message, tokenId: token.id }, 'personal token use not recorded'),
    );
  }

  return {
    async authenticate(token) {
      const found = await lookup(hashToken(token));
      if (!found || (found.expiresAt && found.expiresAt.getTime() <= o.now())) {
        throw new AppError('UNAUTHORIZED', 'Invalid, expired or revoked personal access token');
      }
      await recordUse(found);
      const scopes = found.scopes.filter((s): s is Scope => (SCOPES as readonly string[]).includes(s));
      return { id: found.userId, email: found.email, sessionId: found.id, scopes, ...(found.expiresAt ? { expiresAt: found.expiresAt.getTime() } : {}) };
    },
    isLive: (tokenId) => isPersonalTokenLive(o.pool, tokenId, new Date(o.now())),
  };
}
