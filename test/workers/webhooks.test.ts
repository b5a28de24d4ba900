import assert from 'node:assert/strict';
import type { Pool } from '../../src/db/pool.ts';
import * as repo from '../../src/db/webhooks.ts';
import { createLogger } from '../../src/logger.ts';
import { freePort } from '../../src/util/net.ts';
import { RETRY_DELAYS_MS, startWebhookDispatcher, type WebhookDispatcherDeps } from '../../src/workers/webhooks.ts';
import { createSender } from '../../src/workers/webhookSender.ts';
import { ManualClock } from '../helpers/clock.ts';
import { insertUser } from '../support/fixtures.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { WebhookReceiver } from '../support/receiver.ts';

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

  const dispatcher = (o: Partial<WebhookDispatcherDeps> & { allowPrivate?: boolean } = {}) => {
    const d = startWebhookDispatcher({
      pool: db.pool,
      log: createLogger('silent'),
      clock,
      send: createSender({ allowPrivate: o.allowPrivate ?? true, clock, timeoutMs: 2000 }),
      attemptTimeoutMs: 2000,
      gameDetail: async () => ({}),
      ...o,
    });
    running.push(d);
    return d;
  };
  const endpoint = async (events = ['game.move'], o: { userId?: string; url?: string } = {}) => {
    const userId = o.userId ?? (await insertUser(db.pool));
    return (await repo.insertWebhook(db.pool, { userId, url: o.url ?? url, events, secret: 'a-secret-of-16-chars', max: 20 }))!;
  };
  const deliver = async (webhookId: string, n: number, orderKey: string | null = null, at = clock.now()) =>
    repo.insertDeliveries(
      db.pool,
      Array.from({ length: n }, (_, i) => ({ webhookId, event: 'game.move', body: JSON.stringify({ type: 'game.move', i }), orderKey, seq: i + 1 })),
      new Date(at),
      1000,
    );
  const delivery = async (id: string) =>
    (await db.pool.query('SELECT status, attempts, next_attempt_at, last_status_code, last_error FROM webhook_deliveries WHERE id = $1', [id])).rows[0];
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
    await d.idle();
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
    await d.idle();
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
    await d.idle();
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
    // Both nodes have nothing left to do (each pass found nothing to send): no delivery went twice.
    await a.idle();
    await b.idle();
    await a.idle();
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    assert.equal(ids.length, 60);
    assert.equal(new Set(ids).size, 60, 'each delivery once');
    assert.equal(got.length, 60);
  });

  describe('one slow user does not hold up the others', () => {
    let slow: WebhookReceiver;
    let slowUrl: string;
    beforeEach(async () => {
      slow = new WebhookReceiver();
      slowUrl = await slow.start();
      // Answers, a byte every 50 ms: never idle, never done (a second of drip is 20 bytes).
      slow.respond = () => ({ drip: { everyMs: 50, part: 'headers' } });
    });
    // Closing its sockets ends the attempts still held, so the dispatchers can stop.
    afterEach(() => slow.stop());

    it("sends another user's delivery at once while one user's eight endpoints drip", async () => {
      const hog = await insertUser(db.pool);
      for (let i = 0; i < 8; i++) {
        const w = await endpoint(['game.move'], { userId: hog, url: `${slowUrl}?n=${i}` });
        await deliver(w.id, 5, null, clock.now() - 1000); // due first
      }
      const other = await endpoint();
      const [mine] = await deliver(other.id, 1);
      dispatcher().kick();
      await receiver.waitFor(1, () => true, 3000);
      await settled(async () => (await delivery(mine.id)).status === 'delivered');
      assert.equal(slow.received.length, 4, "one user's deliveries in flight at once: 4");
    });

    it("does not let one user's backlog, due earlier, crowd another user's delivery out of a claim", async () => {
      const hog = await endpoint(['game.move'], { url: slowUrl });
      await deliver(hog.id, 30, null, clock.now() - 1000);
      const other = await endpoint();
      const [mine] = await deliver(other.id, 1);
      dispatcher({ maxInFlight: 4, perOwner: 2 }).kick();
      await receiver.waitFor(1, () => true, 3000);
      await settled(async () => (await delivery(mine.id)).status === 'delivered');
      assert.equal(slow.received.length, 2);
    });

    it('keeps a dripping attempt to its deadline: recorded "timed out", retried on schedule, never sent twice at once by two nodes', async () => {
      const w = await endpoint(['game.move'], { url: slowUrl });
      const [one] = await deliver(w.id, 1);
      const nodes = [dispatcher(), dispatcher()];
      for (const n of nodes) n.kick();
      await slow.waitFor(1);
      // 40 s: past a 30 s claim, long enough for any node to take a delivery it thinks abandoned.
      for (let s = 0; s < 40; s++) {
        await clock.advance(1000);
        for (const n of nodes) n.kick();
        await new Promise((r) => setTimeout(r, 20));
        if (s === 1) {
          await settled(async () => (await delivery(one.id)).attempts === 1);
          const after1 = await delivery(one.id);
          assert.deepEqual([after1.status, after1.last_status_code, after1.last_error], ['pending', null, 'timed out']);
          assert.equal(after1.next_attempt_at.getTime() - clock.now(), RETRY_DELAYS_MS[0], 'retried on schedule');
        }
      }
      assert.equal(slow.peakOpen.get(`msg_${one.id}`), 1, 'one attempt at a time');
      const attempts = (await db.pool.query('SELECT error, duration_ms FROM webhook_attempts WHERE delivery_id = $1 ORDER BY attempt', [one.id])).rows;
      assert.ok(attempts.length >= 2);
      assert.deepEqual(attempts[0], { error: 'timed out', duration_ms: 2000 });
    });
  });

  describe("what a delivery's owner is told", () => {
    it('records a refused private target as "target address not allowed", naming no internal name or address', async () => {
      const port = new URL(url).port;
      const w = await endpoint(['game.move'], { url: `https://localhost.:${port}/hook` });
      const [one] = await deliver(w.id, 1);
      dispatcher({ allowPrivate: false }).kick();
      await settled(async () => (await delivery(one.id)).attempts === 1);
      const row = await delivery(one.id);
      assert.equal(row.last_error, 'target address not allowed');
      assert.equal(receiver.received.length, 0);
    });

    it('records a closed port as "connection refused"', async () => {
      const w = await endpoint(['game.move'], { url: `http://127.0.0.1:${await freePort()}/hook` });
      const [one] = await deliver(w.id, 1);
      dispatcher().kick();
      await settled(async () => (await delivery(one.id)).attempts === 1);
      assert.equal((await delivery(one.id)).last_error, 'connection refused');
    });
  });

  it('queues at most maxPending deliveries per endpoint: later events are not queued, and listed as failed saying why', async () => {
    const w = await endpoint(['friend.request']);
    await deliver(w.id, 3, null, clock.now() + 3_600_000); // pending, due in an hour
    for (let i = 0; i < 2; i++) await repo.insertOutbox(db.pool, { topic: 'friend.request', gameId: null, userIds: [w.userId], payload: { i } });
    dispatcher({ maxPending: 3 }).kick();
    await settled(async () => (await db.pool.query('SELECT 1 FROM outbox WHERE processed_at IS NULL')).rowCount === 0);
    const rows = (await db.pool.query(`SELECT status, attempts, last_error FROM webhook_deliveries WHERE webhook_id = $1 AND event = 'friend.request'`, [w.id])).rows;
    assert.deepEqual(rows, [
      { status: 'failed', attempts: 0, last_error: 'not queued: 3 deliveries already pending' },
      { status: 'failed', attempts: 0, last_error: 'not queued: 3 deliveries already pending' },
    ]);
    assert.equal(receiver.received.length, 0);
  });
});
