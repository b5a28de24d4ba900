import assert from 'node:assert/strict';
import pg from 'pg';
import { lockNode, registerNode } from '../../src/db/nodes.ts';
import type { Pool } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { systemClock } from '../../src/time.ts';
import { startNodeWatch, type NodeWatch } from '../../src/workers/nodeWatch.ts';
import { insertActiveGame, insertUser } from '../support/fixtures.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { until } from '../helpers/poll.ts';

/**
 * The dead-node detector against a real PostgreSQL: another "node" is a plain session holding its
 * lock and row, so a test can end it (as a kill -9 ends a process's sessions) or bring it back.
 * The watch's timer is made too slow to matter; the test polls with `check()`.
 */
describe('node watch (dead-node detection by session lock)', function () {
  this.timeout(20_000);
  let db: { pool: Pool; drop: () => Promise<void> };
  let url: string;
  const watches: NodeWatch[] = [];
  const sessions: pg.Client[] = [];
  const log = createLogger('silent');

  before(async () => {
    db = await isolatedDatabase();
    url = db.pool.options.connectionString!;
  });
  afterEach(async () => {
    await Promise.all(watches.splice(0).map((w) => w.stop()));
    await Promise.all(sessions.splice(0).map((s) => s.end().catch(() => {})));
    await db.pool.query('DELETE FROM nodes'); // no test meets another's nodes
  });
  after(() => db.drop());

  /** A node as its lock and row: a session of its own, like a node's. */
  async function fakeNode(id: string): Promise<pg.Client> {
    const session = new pg.Client({ connectionString: url });
    session.on('error', () => {});
    await session.connect();
    assert.equal(await lockNode(session, id), true);
    await registerNode(session, id, null);
    sessions.push(session);
    return session;
  }

  /** An active game and a seek pool leased by `host`, its lease running for another minute. */
  async function leasesOf(host: string): Promise<{ gameId: string; pool: string }> {
    const gameId = await insertActiveGame(db.pool, await insertUser(db.pool), await insertUser(db.pool));
    await db.pool.query(`UPDATE games SET host = $2, host_epoch = 1, lease_expires_at = now() + interval '1 minute' WHERE id = $1`, [gameId, host]);
    const pool = `pool-${host}`;
    await db.pool.query(`INSERT INTO seek_pools (pool, host, host_epoch, lease_expires_at) VALUES ($1, $2, 1, now() + interval '1 minute')`, [pool, host]);
    return { gameId, pool };
  }

  async function leased(l: { gameId: string; pool: string }): Promise<[boolean, boolean]> {
    const g = await db.pool.query('SELECT lease_expires_at FROM games WHERE id = $1', [l.gameId]);
    const p = await db.pool.query('SELECT lease_expires_at FROM seek_pools WHERE pool = $1', [l.pool]);
    return [g.rows[0].lease_expires_at !== null, p.rows[0].lease_expires_at !== null];
  }

  const registered = async (id: string) => (await db.pool.query('SELECT 1 FROM nodes WHERE id = $1', [id])).rowCount === 1;

  async function watch(id: string, o: { rejoinGraceMs?: number } = {}) {
    const gone: Array<[string, boolean]> = [];
    const seen: string[] = [];
    const w = await startNodeWatch({
      databaseUrl: url, pool: db.pool, log, clock: systemClock, id, intervalMs: 600_000,
      onGone: (n, here) => void gone.push([n, here]),
      onSeen: (n) => void seen.push(n),
      ...o,
    });
    watches.push(w);
    return { w, gone, seen };
  }

  it('ends the leases of a node whose session ended once its lock is found free twice, and forgets it', async () => {
    const x = await fakeNode('x1');
    const lx = await leasesOf('x1');
    const { w, gone } = await watch('w1');
    assert.deepEqual(w.peers(), ['x1']);

    await x.end(); // the process died: its session, and with it its lock, are gone
    await w.check();
    assert.deepEqual(await leased(lx), [true, true], 'a lock free once may belong to a node taking it back');
    assert.ok(await registered('x1'));
    await w.check();
    assert.deepEqual(await leased(lx), [false, false], "the dead node's game and seek pool are free for any node");
    assert.equal(await registered('x1'), false);
    assert.deepEqual(gone, [['x1', true]]);
    assert.deepEqual(w.peers(), []);
  });

  it('leaves a node alone whose session came back between two looks, and a live node always', async () => {
    const x = await fakeNode('x2');
    await fakeNode('y2');
    const lx = await leasesOf('x2');
    const ly = await leasesOf('y2');
    const { w, gone } = await watch('w2');

    await x.end();
    await w.check(); // x2's lock is free: a suspect
    await fakeNode('x2'); // ...but it takes its lock back (a new session), as a node whose connection blipped does
    await w.check();
    await w.check();
    assert.deepEqual(await leased(lx), [true, true]);
    assert.deepEqual(await leased(ly), [true, true]);
    assert.deepEqual(gone, []);
    assert.deepEqual(w.peers().sort(), ['x2', 'y2']);
  });

  it('takes over a crashed predecessor before it resolves (a node restarted after a crash)', async () => {
    const x = await fakeNode('x3');
    const lx = await leasesOf('x3');
    await x.end();
    const { gone } = await watch('w3');
    assert.deepEqual(await leased(lx), [false, false]);
    assert.deepEqual(gone, [['x3', true]]);
  });

  it('takes its own lock back and registers again when its session is cut, and judges nobody during its grace', async () => {
    const { w, gone } = await watch('w4', { rejoinGraceMs: 600_000 });
    const x = await fakeNode('x4');
    const lx = await leasesOf('x4');
    const sessionOf = async () =>
      (
        await db.pool.query(
          `SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
              AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended('chess-node:' || $1, 0)`,
          ['w4'],
        )
      ).rows[0]?.pid as number | undefined;
    const before = await sessionOf();
    assert.ok(before, 'the node holds its lock');
    // The session is cut (an administrator, a proxy, a PostgreSQL restart), and another node (x4)
    // dies at the same moment, as at a PostgreSQL restart.
    await db.pool.query('SELECT pg_terminate_backend($1)', [before]);
    await x.end();
    await until('the node holds its lock again on a new session', async () => {
      const pid = await sessionOf();
      return pid !== undefined && pid !== before;
    });
    assert.ok(await registered('w4'));
    await w.check();
    await w.check();
    assert.deepEqual(await leased(lx), [true, true], 'no judgement within the grace after its own session came back');
    assert.deepEqual(gone, []);
  });

  it('tells of a node that starts, and of one that leaves (its row removed on shutdown)', async () => {
    const { w, gone, seen } = await watch('w7');
    const z = await fakeNode('z7');
    await w.check();
    assert.deepEqual(seen, ['z7']);
    await db.pool.query(`DELETE FROM nodes WHERE id = 'z7'`);
    await z.end();
    await w.check();
    assert.deepEqual(gone, [['z7', false]], 'gone, found dead by nobody here');
  });

  it('registers again when another node removed it while its session was down', async () => {
    const { w } = await watch('w5');
    await db.pool.query(`DELETE FROM nodes WHERE id = 'w5'`);
    await w.check();
    assert.ok(await registered('w5'));
  });

  it('refuses to start with an id whose lock another session holds', async () => {
    await fakeNode('w6');
    await assert.rejects(watch('w6'), /held by another session/);
  });
});
