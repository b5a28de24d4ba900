import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { RedisPresence } from '@colyseus/redis-presence';
import { Redis } from 'ioredis';
import { limiterFactory } from '../src/limits.ts';

/**
 * What Redis gives a multi-process deployment: counters every node shares and a pub/sub that
 * reaches every node. Needs REDIS_URL (CI sets it); without it these tests are skipped, loudly.
 */
describe('Redis-backed parts (REDIS_URL)', function () {
  const url = process.env.REDIS_URL;
  const clients: Redis[] = [];
  before(function () {
    if (!url) {
      console.warn('    SKIPPED: REDIS_URL is not set, so the Redis-backed tests did not run');
      this.skip();
    }
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.quit()));
  });
  const client = () => {
    const c = new Redis(url!);
    clients.push(c);
    return c;
  };

  it('shares one rate-limit counter between two nodes', async () => {
    const name = `test-${randomBytes(4).toString('hex')}`;
    const nodeA = limiterFactory(client())(name, 3, 60);
    const nodeB = limiterFactory(client())(name, 3, 60);
    await nodeA.consume('u:1');
    await nodeB.consume('u:1');
    const third = await nodeA.consume('u:1');
    assert.equal(third.remainingPoints, 0);
    await assert.rejects(nodeB.consume('u:1'));
  });

  it('delivers a game event published on one node to a subscriber on another', async () => {
    const a = new RedisPresence(url!);
    const b = new RedisPresence(url!);
    try {
      const channel = `game:${randomBytes(4).toString('hex')}`;
      let deliver!: (m: unknown) => void;
      const received = new Promise((resolve) => (deliver = resolve));
      await b.subscribe(channel, (m: unknown) => deliver(m));
      await a.publish(channel, JSON.stringify({ type: 'move', v: 1 }));
      assert.deepEqual(await received, JSON.stringify({ type: 'move', v: 1 }));
    } finally {
      a.shutdown();
      b.shutdown();
    }
  });
});
