import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createPersonalTokenCache, isPersonalToken, newPersonalToken } from '../../src/auth/personalTokens.ts';
import type { LivePersonalToken } from '../../src/db/personalTokens.ts';
import { ManualClock } from '../helpers/clock.ts';

const token = (o: Partial<LivePersonalToken> = {}): LivePersonalToken => ({
  id: randomUUID(),
  userId: randomUUID(),
  email: 'ann@example.com',
  description: 'bot',
  scopes: ['games:read'],
  createdAt: new Date(),
  expiresAt: null,
  lastUsedAt: null,
  ...o,
});

describe('personal access tokens: the token and its cache', () => {
  it('makes cst_ + 43 base62 characters, each time another', () => {
    const made = Array.from({ length: 200 }, newPersonalToken);
    for (const t of made) assert.match(t, /^cst_[0-9A-Za-z]{43}$/);
    assert.equal(new Set(made).size, made.length);
    assert.ok(made.every(isPersonalToken));
    assert.equal(isPersonalToken('eyJhbGciOiJIUzI1NiJ9.e30.x'), false);
  });

  describe('the cache', () => {
    let clock: ManualClock;
    const cacheOf = (ttlMs = 10_000) => createPersonalTokenCache({ ttlMs, now: () => clock.now() });
    beforeEach(() => {
      clock = new ManualClock();
    });

    it('answers a stored token until its time to live, and never past the token\u2019s expiry', async () => {
      const cache = cacheOf(10_000);
      const lasting = token();
      const expiring = token({ expiresAt: new Date(clock.now() + 3_000) });
      cache.begin()('h1', lasting);
      cache.begin()('h2', expiring);
      await clock.advance(3_000);
      assert.equal(cache.get('h2'), undefined);
      assert.equal(cache.get('h1'), lasting);
      await clock.advance(7_000);
      assert.equal(cache.get('h1'), undefined);
    });

    it('forgets a revoked token at once, and every token of a user revoked as a whole, keeping others', () => {
      const cache = cacheOf();
      const ann = randomUUID();
      const [a1, a2, bob] = [token({ userId: ann }), token({ userId: ann }), token()];
      cache.begin()('a1', a1);
      cache.begin()('a2', a2);
      cache.begin()('bob', bob);
      cache.revoke(ann, a1.id);
      assert.equal(cache.get('a1'), undefined);
      assert.equal(cache.get('a2'), a2);
      cache.revoke(ann, null);
      assert.equal(cache.get('a2'), undefined);
      assert.equal(cache.get('bob'), bob);
    });

    it('does not store a read that began before a revocation, nor anything while untrusted', () => {
      const cache = cacheOf();
      const t = token();
      const store = cache.begin();
      cache.revoke(t.userId, t.id);
      store('h', t);
      assert.equal(cache.get('h'), undefined);
      cache.setTrusted(false);
      cache.begin()('h', t);
      assert.equal(cache.get('h'), undefined);
      cache.setTrusted(true);
      cache.begin()('h', t);
      assert.equal(cache.get('h'), t);
      cache.setTrusted(false);
      assert.equal(cache.get('h'), undefined, 'an untrusted cache answers nothing');
    });
  });
});
