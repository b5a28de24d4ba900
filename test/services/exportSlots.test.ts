import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createExportSlots } from '../../src/services/exportSlots.ts';
import { ManualClock } from '../helpers/clock.ts';
import { until } from '../helpers/poll.ts';

describe('export slots in Redis (REDIS_URL)', () => {
  const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL) : undefined;
  before(function () {
    if (!redis) this.skip();
  });
  after(() => redis?.quit());

  it("renews a running export's slot every 10 s on the service's clock, and no more once it is released", async () => {
    const r = redis!;
    const clock = new ManualClock();
    const slots = createExportSlots(r, { perNode: 2, perAddress: 1 }, clock);
    const caller = `test-${randomUUID()}`;
    const key = `export:slot:${caller}`;
    const slot = await slots.take(caller, '192.0.2.1');
    assert.ok('release' in slot);
    try {
      // As if the slot were about to lapse: its next renewal gives it its whole lifetime again.
      await r.pexpire(key, 5_000);
      await clock.advance(9_999);
      assert.ok((await r.pttl(key)) <= 5_000, 'not renewed before its time');
      await clock.advance(1);
      // Redis answers on its own time.
      await until('the slot renewed to 30 s', async () => (await r.pttl(key)) > 25_000, { ms: 5_000 });
    } finally {
      await slot.release();
    }
    assert.equal(await r.exists(key), 0);
    assert.equal(clock.pending, 0, 'no renewal left waiting');
  });
});
