import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createSessionCache } from '../../src/auth/sessionCache.ts';
import { createLogger } from '../../src/logger.ts';
import { createSessionRevocations } from '../../src/services/sessionRevocations.ts';
import { until } from '../helpers/poll.ts';

const FAR = Number.MAX_SAFE_INTEGER;
const session = () => ({ sessionId: randomUUID(), userId: randomUUID(), email: 'ann@example.com' });

/** A node's session cache is trusted only while its Redis subscription to revocations is up. */
describe('session revocations over Redis (REDIS_URL)', function () {
  this.timeout(20_000);
  const redisUrl = process.env.REDIS_URL;
  const log = createLogger('silent');
  let redis: Redis;
  let admin: Redis;

  before(function () {
    if (!redisUrl) {
      console.warn('    SKIPPED: REDIS_URL is not set');
      return this.skip();
    }
    redis = new Redis(redisUrl);
    admin = new Redis(redisUrl);
  });
  after(async () => {
    await redis?.quit();
    await admin?.quit();
  });

  const clients = async () => String(await admin.call('CLIENT', 'LIST'));
  /** Stores a session and answers whether the cache gives it back (it does only when trusted). */
  const answers = (cache: ReturnType<typeof createSessionCache>, s = session()) => {
    cache.begin()(s, FAR);
    return cache.get(s.sessionId) !== undefined;
  };

  it('trusts nothing until subscribed; empties itself when the subscription drops, and hears revocations again after it is back', async () => {
    const name = `test-revocations-${randomUUID().slice(0, 8)}`;
    const cache = createSessionCache({ ttlMs: 60_000, now: Date.now });
    // Every change of trust, in order, as the cache is told it.
    const trust: boolean[] = [];
    const setTrusted = cache.setTrusted;
    cache.setTrusted = (value) => (trust.push(value), setTrusted(value));
    const node = createSessionRevocations({ redis, log }, cache, name);
    const other = createSessionRevocations({ redis, log }, createSessionCache({ ttlMs: 60_000, now: Date.now }), `${name}-other`);
    try {
      assert.equal(answers(cache), false, 'trusted before its subscription was up');
      await until('the cache to be trusted once subscribed', () => answers(cache));
      const before = session();
      cache.begin()(before, FAR);
      assert.ok(cache.get(before.sessionId));

      // The subscription's connection is cut, as a Redis restart or a network fault would.
      const id = (await clients()).split('\n').find((l) => l.includes(` name=${name} `))?.match(/^id=(\d+)/)?.[1];
      assert.ok(id, 'the subscription connection is listed');
      await admin.client('KILL', 'ID', id);
      // Back, and trusted again (it reconnects by itself) — without what it held before the cut:
      // a revocation published meanwhile would have been lost.
      await until('the cache to be trusted again after reconnecting', async () =>
        (await clients()).includes(` name=${name} `) && answers(cache),
      );
      assert.equal(cache.get(before.sessionId), undefined);
      // Untrusted from the cut until subscribed again: requests meanwhile read PostgreSQL.
      const cut = trust.indexOf(false, trust.indexOf(true));
      assert.ok(cut > 0 && trust.indexOf(true, cut) > cut, `trust went ${JSON.stringify(trust)}`);

      const after = session();
      cache.begin()(after, FAR);
      await other.publish(after.userId, after.sessionId);
      await until('the revocation to reach the cache', () => cache.get(after.sessionId) === undefined);
    } finally {
      await node.close();
      await other.close();
    }
  });
});
