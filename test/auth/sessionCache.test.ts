import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createSessionCache } from '../../src/auth/sessionCache.ts';
import { ManualClock } from '../helpers/clock.ts';

const session = (userId = randomUUID()) => ({ sessionId: randomUUID(), userId, email: 'ann@example.com' });
const FAR = Number.MAX_SAFE_INTEGER;

describe('the session cache', () => {
  let clock: ManualClock;
  const cacheOf = (ttlMs = 10_000, maxEntries?: number) => createSessionCache({ ttlMs, now: () => clock.now(), maxEntries });
  beforeEach(() => {
    clock = new ManualClock();
  });

  it('answers a stored session until its time to live has passed', async () => {
    const cache = cacheOf(10_000);
    const s = session();
    cache.begin()(s, FAR);
    assert.deepEqual(cache.get(s.sessionId), s);
    await clock.advance(9_999);
    assert.deepEqual(cache.get(s.sessionId), s);
    await clock.advance(1);
    assert.equal(cache.get(s.sessionId), undefined);
  });

  it('never answers past the end of the session itself (its absolute lifetime)', async () => {
    const cache = cacheOf(10_000);
    const s = session();
    cache.begin()(s, clock.now() + 3_000);
    await clock.advance(3_000);
    assert.equal(cache.get(s.sessionId), undefined);
  });

  it('forgets a revoked session at once, and all sessions of a user whose password changed', () => {
    const cache = cacheOf();
    const ann = randomUUID();
    const [a1, a2, bob] = [session(ann), session(ann), session()];
    for (const s of [a1, a2, bob]) cache.begin()(s, FAR);
    cache.revoke(ann, a1.sessionId);
    assert.equal(cache.get(a1.sessionId), undefined);
    assert.deepEqual(cache.get(a2.sessionId), a2);
    cache.revoke(ann, null);
    assert.equal(cache.get(a2.sessionId), undefined);
    assert.deepEqual(cache.get(bob.sessionId), bob);
  });

  it('does not store a read that began before a revocation (the read may predate it)', () => {
    const cache = cacheOf();
    const s = session();
    const store = cache.begin();
    cache.revoke(s.userId, s.sessionId);
    store(s, FAR);
    assert.equal(cache.get(s.sessionId), undefined);
    // A read begun after the revocation is stored.
    cache.begin()(s, FAR);
    assert.deepEqual(cache.get(s.sessionId), s);
  });

  it('answers and stores nothing while untrusted (revocations cannot reach it), and starts empty when trusted again', () => {
    const cache = cacheOf();
    const s = session();
    cache.begin()(s, FAR);
    const store = cache.begin();
    cache.setTrusted(false);
    assert.equal(cache.get(s.sessionId), undefined);
    cache.begin()(s, FAR);
    assert.equal(cache.size, 0);
    cache.setTrusted(true);
    store(s, FAR); // read while untrusted: revocations of that time were lost
    assert.equal(cache.get(s.sessionId), undefined);
  });

  it('stores nothing with a time to live of 0 (SESSION_CACHE_SECONDS=0)', () => {
    const cache = cacheOf(0);
    const s = session();
    cache.begin()(s, FAR);
    assert.equal(cache.get(s.sessionId), undefined);
  });

  it('keeps at most maxEntries, dropping the oldest', () => {
    const cache = cacheOf(10_000, 2);
    const [a, b, c] = [session(), session(), session()];
    for (const s of [a, b, c]) cache.begin()(s, FAR);
    assert.equal(cache.size, 2);
    assert.equal(cache.get(a.sessionId), undefined);
    assert.deepEqual(cache.get(c.sessionId), c);
  });
});
