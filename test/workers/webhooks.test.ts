import assert from 'node:assert/strict';
import type { Pool } from '../../src/db/pool.ts';
import * as repo from '../../src/db/webhooks.ts';
import { createLogger } from '../../src/logger.ts';
import { RETRY_DELAYS_MS, startWebhookDispatcher } from '../../src/workers/webhooks.ts';
import { createSender } from '../../src/workers/webhookSender.ts';
import { ManualClock } from '../helpers/clock.ts';
import { insertUser } from '../helpers/fixtures.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { WebhookReceiver } from '../helpers/receiver.ts';

/**
 * The dispatcher on a database of its own, a real HTTP receiver, and a manual clock: retries are
 * made due by moving the clock, not by waiting for them.
 */
describe('webhook dispatcher (retries, order, two nodes)', function () {
  this.timeout(30_000);
  let db: { pool: Pool; drop: () => Promise<void> };
  let receiver: WebhookReceiver;
  let url: string;
  let clock: ManualClock;
  const running: Array<{ stop: () => Promise<void> }> = [];

  before(async () => {
    db = await isolatedDatabase();
  });
  after(() => db.drop());
  let pump: NodeJS.Timeout;
  beforeEach(async () => {
    receiver = new WebhookReceiver();
    url = await receiver.start();
    clock = new ManualClock(Date.now());
    // Fires what is due now (a pass asked for at once), never moving time: the tests move it.
    pump = setInterval(() => void clock.advance(0), 5);
  });
  afterEach(async () => {
    clearInterval(pump);
    await Promise.all(running.splice(0).map((r) => r.stop()));
    await receiver.stop();
  });

  const dispatcher = () => {
    const d = startWebhookDispatcher({
      pool: db.pool,
      log: createLogger('silent'),
      clock,
      send: createSender({ allowPrivate: true, now: () => clock.now(), timeoutMs: 2000 }),
      gameDetail: async () => ({}),
    });
    running.push(d);
    return d;
  };
  const endpoint = async (events = ['game.move']) => {
    const userId = await insertUser(db.pool);
    return (await repo.insertWebhook(db.pool, { userId, url, events, secret: 'a-secret-of-16-chars', max: 20 }))!;
  };
  const deliver = async (webhookId: string, n: number, orderKey: string | null = null) =>
    repo.insertDeliveries(
      db.pool,
      Array.from({ length: n }, (_, i) => ({ webhookId, event: 'game.move', body: JSON.stringify({ type: 'game.move', i }), orderKey, seq: i + 1 })),
      new Date(clock.now()),
    );
  const delivery = async (id: string) => (await db.pool.query('SELECT status, attempts, next_attempt_at, last_status_code FROM webhook_deliveries WHERE id = $1', [id])).rows[0];
  /** Time passes (timers do not fire: the next pass is kicked). */
  const later = (ms: number, d: { kick: () => void }) => {
    clock.skip(ms);
    d.kick();
  };
  const settled = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(await check(), 'did not settle');
  };

  it('retries a failed delivery on the schedule with the same webhook-id, and delivers it', async () => {
    const w = await endpoint();
    const [one] = await deliver(w.id, 1);
    receiver.respond = (_r, n) => ({ status: n === 1 ? 500 : 200 });
    const d = dispatcher();
    d.kick();
    await receiver.waitFor(1);
    await settled(async () => (await delivery(one.id)).attempts === 1);
    const after1 = await delivery(one.id);
    assert.equal(after1.status, 'pending');
    assert.equal(after1.last_status_code, 500);
    assert.equal(after1.next_attempt_at.getTime() - clock.now(), RETRY_DELAYS_MS[0], 'the first retry after 5 s');
    later(4000, d);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(receiver.received.length, 1, 'not before its time');
    later(1000, d);
    const [first, second] = await receiver.waitFor(2);
    assert.equal(second.headers['webhook-id'], first.headers['webhook-id'], 'the same id on every attempt');
    assert.equal(second.headers['webhook-id'], `msg_${one.id}`);
    await settled(async () => (await delivery(one.id)).status === 'delivered');
    const attempts = (await db.pool.query('SELECT attempt, status_code FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt', [one.id])).rows;
    assert.deepEqual(attempts, [{ attempt: 1, status_code: 500 }, { attempt: 2, status_code: 200 }]);
  });

  it('honours Retry-After when it asks for longer than the schedule', async () => {
    const w = await endpoint();
    const [one] = await deliver(w.id, 1);
    receiver.respond = (_r, n) => (n === 1 ? { status: 503, headers: { 'retry-after': '120' } } : { status: 204 });
    const d = dispatcher();
    d.kick();
    await settled(async () => (await delivery(one.id)).attempts === 1);
    assert.equal((await delivery(one.id)).next_attempt_at.getTime() - clock.now(), 120_000);
    later(60_000, d);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(receiver.received.length, 1);
    later(60_000, d);
    await receiver.waitFor(2);
    await settled(async () => (await delivery(one.id)).status === 'delivered');
  });

  it('disables the endpoint on 410 Gone, and its other deliveries fail with it', async () => {
    const w = await endpoint();
    const [one, two] = await deliver(w.id, 2, 'game:x');
    receiver.respond = () => ({ status: 410 });
    dispatcher().kick();
    await settled(async () => (await delivery(two.id)).status === 'failed');
    assert.equal((await delivery(one.id)).status, 'failed');
    assert.equal(receiver.received.length, 1, 'nothing after the 410');
    const hook = await repo.findWebhook(db.pool, w.userId, w.id);
    assert.deepEqual([hook!.active, hook!.disabledReason], [false, 'the receiver answered 410 Gone']);
  });

  it('gives up after the last retry (ten attempts over about three days) and disables the endpoint', async () => {
    const w = await endpoint();
    const [one] = await deliver(w.id, 1);
    receiver.respond = () => ({ status: 500 });
    const d = dispatcher();
    d.kick();
    for (const [i, wait] of RETRY_DELAYS_MS.entries()) {
      await settled(async () => (await delivery(one.id)).attempts === i + 1);
      later(wait, d);
    }
    await settled(async () => (await delivery(one.id)).status === 'failed');
    assert.equal((await delivery(one.id)).attempts, 10);
    assert.equal(receiver.received.length, 10);
    assert.equal((await repo.findWebhook(db.pool, w.userId, w.id))!.active, false);
  });

  it("keeps one game's events in order: a later move waits while an earlier one is retried", async () => {
    const w = await endpoint();
    await deliver(w.id, 3, 'game:g1');
    receiver.respond = (r, n) => ({ status: n === 1 ? 500 : 200 });
    const d = dispatcher();
    d.kick();
    await receiver.waitFor(1);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(receiver.received.length, 1, 'moves 2 and 3 wait for move 1');
    later(RETRY_DELAYS_MS[0], d);
    const got = await receiver.waitFor(4);
    assert.deepEqual(got.map((r) => r.json.i), [0, 0, 1, 2]);
  });

  it('lets two nodes share the queue without ever sending one delivery twice', async () => {
    const w = await endpoint();
    await deliver(w.id, 60);
    const [a, b] = [dispatcher(), dispatcher()];
    a.kick();
    b.kick();
    const got = await receiver.waitFor(60);
    await new Promise((r) => setTimeout(r, 300));
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    assert.equal(ids.length, 60);
    assert.equal(new Set(ids).size, 60, 'each delivery once');
    assert.equal(got.length, 60);
  });
});
