import assert from 'node:assert/strict';
import type { AppContext } from '../../src/context.ts';
import type { Pool } from '../../src/db/pool.ts';
import { poolId, type PoolKey } from '../../src/domain/pairing.ts';
import { createLogger } from '../../src/logger.ts';
import { PoolRetired, SeekPoolActor } from '../../src/services/seekPoolActor.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { insertUser } from '../support/fixtures.ts';
import { systemClock } from '../../src/time.ts';
import { ManualClock } from '../helpers/clock.ts';


/**
 * The pool actor alone, on a database of its own: two actors stand for two nodes. The context is
 * fake where it reaches beyond the pool (events go nowhere; the games they open are not in the
 * running service's database, so the gateway finds nothing to host).
 */
describe('SeekPoolActor (the pool actor) across nodes', () => {
  let db: { pool: Pool; drop: () => Promise<void> };
  let ctx: AppContext;
  const opened: SeekPoolActor[] = [];
  let keyCounter = 0;
  const newKey = (): PoolKey => ({ timeControl: 'rapid', initialTime: 600 + keyCounter++, increment: 0, rated: true });

  before(async () => {
    db = await isolatedDatabase();
    ctx = {
      config: { gameLeaseMs: 15_000, seekTtlMs: 60_000, firstMoveMs: 30_000, seekPoolIdleMs: 60_000 },
      log: createLogger('silent'),
      pool: db.pool,
      redis: undefined,
      events: { publish: () => {}, subscribe: async () => () => {}, attach: () => {} },
      clock: systemClock,
    } as unknown as AppContext;
  });

  after(async () => {
    await Promise.all(opened.map((p) => p.close()));
    await db.drop();
  });

  const open = async (key: PoolKey, host: string): Promise<SeekPoolActor | 'lease_held'> => {
    const pool = await SeekPoolActor.open(ctx, key, host);
    if (pool !== 'lease_held') opened.push(pool);
    return pool;
  };

  const expireLease = (key: PoolKey) =>
    db.pool.query(`UPDATE seek_pools SET lease_expires_at = now() - interval '1 second' WHERE pool = $1`, [poolId(key)]);

  const statusOf = async (id: string) => (await db.pool.query('SELECT status FROM games WHERE id = $1', [id])).rows[0]?.status;

  it('pairs a 1500 and a 1900 seeker only once the older window widened to 400 (6–7 s, on a manual clock)', async () => {
    // The clock starts at the real now, so the seeks' created_at (the database's clock) agrees with it.
    const clock = new ManualClock(Date.now());
    const key = newKey();
    const pool = await SeekPoolActor.open({ ...ctx, clock }, key, 'node-window');
    assert.ok(pool instanceof SeekPoolActor);
    opened.push(pool);
    const [a, b] = [await insertUser(db.pool), await insertUser(db.pool)];
    const rate = (id: string, rating: number) =>
      db.pool.query(`INSERT INTO user_ratings (user_id, category, rating, rd, volatility) VALUES ($1, 'rapid', $2, 80, 0.06)`, [id, rating]);
    await Promise.all([rate(a, 1500), rate(b, 1900)]);
    const first = await pool.seek(a, 'random');
    const second = await pool.seek(b, 'random');
    assert.ok(first.ok && first.value.status === 'pending' && second.ok && second.value.status === 'pending');
    const firstId = (first.value as { seekId: string }).seekId;
    await clock.advance(5000);
    assert.equal(await statusOf(firstId), 'pending', 'still apart at 5 s (window ±350)');
    // The seeks were stamped a few real milliseconds after the clock started: the 6 s pass may
    // find them just short of 6 s, the 7 s pass cannot.
    await clock.advance(2000);
    await pool.seek(a, 'random'); // queued behind the passes: once it answers, they are done
    assert.equal(await statusOf(firstId), 'active', 'paired once the window reached ±400');
  });

  it('lets one node at a time host a pool; the old host learns on its next pass that it lost it', async () => {
    const key = newKey();
    const clock = new ManualClock(Date.now());
    let lost = false;
    const first = await SeekPoolActor.open({ ...ctx, clock }, key, 'node-a', { lost: () => (lost = true) });
    assert.ok(first instanceof SeekPoolActor);
    opened.push(first);
    assert.equal(await open(key, 'node-b'), 'lease_held', 'a second node may not host a live pool');
    await expireLease(key); // node-a stalls long enough for its lease to lapse
    const second = await open(key, 'node-b');
    assert.ok(second instanceof SeekPoolActor);
    assert.equal(second.epoch, first.epoch + 1);
    await clock.advance(1000); // its next pass
    await first.idle();
    assert.ok(lost, 'the fenced-out actor was not told');
  });

  it('rebuilds the waiting queue from the database when a node takes a pool over', async () => {
    const key = newKey();
    const [a, b] = [await insertUser(db.pool), await insertUser(db.pool)];
    const first = (await open(key, 'node-a')) as SeekPoolActor;
    const placed = await first.seek(a, 'random');
    assert.ok(placed.ok && placed.value.status === 'pending');
    await expireLease(key);
    const second = (await open(key, 'node-b')) as SeekPoolActor;
    assert.equal(second.size, 1, 'the new actor knows the acknowledged seek');
    const paired = await second.seek(b, 'random');
    assert.ok(paired.ok && paired.value.status === 'active');
    assert.equal(paired.value.gameId, placed.value.seekId);
  });

  it('never lets a stale actor pair a seek the new actor already paired', async () => {
    const key = newKey();
    const [a, b, c] = [await insertUser(db.pool), await insertUser(db.pool), await insertUser(db.pool)];
    const stale = (await open(key, 'node-a')) as SeekPoolActor;
    const placed = await stale.seek(a, 'random');
    assert.ok(placed.ok && placed.value.status === 'pending');
    await expireLease(key);
    const fresh = (await open(key, 'node-b')) as SeekPoolActor;
    const paired = await fresh.seek(b, 'random');
    assert.ok(paired.ok && paired.value.status === 'active');
    // The stale actor still has a's seek in its cache: it must find it gone, not seat c with a.
    const late = await stale.seek(c, 'random');
    assert.ok(late.ok, JSON.stringify(late));
    assert.equal(late.value.status, 'pending');
    assert.equal(await statusOf(placed.value.seekId), 'active');
    const { rows } = await db.pool.query(`SELECT white_id, black_id FROM games WHERE id = $1`, [placed.value.seekId]);
    assert.deepEqual([rows[0].white_id, rows[0].black_id].sort(), [a, b].sort());
  });

  describe('retiring when idle', () => {
    const idleCtx = (clock: ManualClock) => ({ ...ctx, clock, config: { ...ctx.config, seekPoolIdleMs: 10_000 } }) as AppContext;
    const leaseOf = async (key: PoolKey) =>
      (await db.pool.query('SELECT host, lease_expires_at FROM seek_pools WHERE pool = $1', [poolId(key)])).rows[0];

    it('goes once it has had no seek for the grace, releasing its lease, and refuses later seeks', async () => {
      const clock = new ManualClock(Date.now());
      const key = newKey();
      let retired = 0;
      const pool = (await SeekPoolActor.open(idleCtx(clock), key, 'node-idle', { retired: () => retired++ })) as SeekPoolActor;
      opened.push(pool);
      const a = await insertUser(db.pool);
      const placed = await pool.seek(a, 'random');
      assert.ok(placed.ok && placed.value.status === 'pending');
      await clock.advance(30_000);
      assert.equal(retired, 0, 'a waiting seek keeps the pool');
      await pool.cancel(placed.value.seekId);
      await clock.advance(9_000);
      assert.equal(retired, 0, 'not before the grace is over');
      await clock.advance(2_000);
      await pool.cancel('00000000-0000-0000-0000-000000000000'); // queued behind the passes
      assert.equal(retired, 1, 'retired after 10 s without a seek');
      const lease = await leaseOf(key);
      assert.equal(lease.host, null, 'the lease is released at once, for the next room to take');
      await assert.rejects(pool.seek(a, 'random'), PoolRetired, 'a seek that arrives later is sent to the next room');
      const next = await open(key, 'node-next');
      assert.ok(next instanceof SeekPoolActor, 'another node may host the pool straight away');
    });

    it('stays while its room says a socket is in it, and retires once it is gone', async () => {
      const clock = new ManualClock(Date.now());
      let socket = true;
      let retired = false;
      const pool = (await SeekPoolActor.open(idleCtx(clock), newKey(), 'node-busy', {
        mayRetire: async () => !socket,
        retired: () => (retired = true),
      })) as SeekPoolActor;
      opened.push(pool);
      await clock.advance(20_000);
      await pool.cancel('00000000-0000-0000-0000-000000000000');
      assert.equal(retired, false);
      socket = false;
      pool.touch(); // the room tells the pool its last socket left
      await clock.advance(5_000);
      await pool.cancel('00000000-0000-0000-0000-000000000000');
      assert.equal(retired, false, 'the grace starts again when the socket leaves');
      await clock.advance(6_000);
      await pool.cancel('00000000-0000-0000-0000-000000000000');
      assert.equal(retired, true);
    });
  });
});
