import assert from 'node:assert/strict';
import { findDueCorrespondenceGames } from '../../src/db/games.ts';
import type { Pool } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { GameActor } from '../../src/services/gameActor.ts';
import { LiveGameHost } from '../../src/services/liveGameHost.ts';
import { CORRESPONDENCE_HORIZON_MS, startSweeper, type Sweeper } from '../../src/workers/sweeper.ts';
import { ManualClock } from '../helpers/clock.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { moveBy } from '../helpers/liveGames.ts';
import { until } from '../helpers/poll.ts';
import { testService } from '../helpers/service.ts';
import { insertCorrespondenceGames, insertUser } from '../support/fixtures.ts';

const DAY = 86_400_000;

/**
 * Correspondence deadlines with nobody connected (DESIGN 2.11): no room, no timer, until the
 * sweeper finds the deadline within its minute and opens the game, whose actor then lets the flag
 * fall. Nodes here are LiveGameHosts over an isolated database on one manual clock; the
 * sweeper's openGame opens the game's actor on its node, as the gateway opens its room.
 */
describe('Correspondence deadlines and the sweeper', function () {
  this.timeout(20_000);
  let db: { pool: Pool; drop: () => Promise<void> };
  let clock: ManualClock;
  let nodes: { host: LiveGameHost; sweeper: Sweeper; actors: Map<string, GameActor> }[] = [];

  before(async () => {
    db = await isolatedDatabase();
  });
  after(() => db.drop());
  beforeEach(() => {
    clock = new ManualClock(Date.now());
  });
  afterEach(async () => {
    for (const n of nodes) {
      await n.sweeper.stop();
      for (const a of n.actors.values()) await a.close(false);
      n.host.close();
    }
    nodes = [];
  });

  /** A node: its host and its sweeper (on the test's clock), the games it opened. */
  const node = async (name: string) => {
    const { config } = await testService();
    const host = new LiveGameHost(db.pool, config, createLogger('silent'), name, clock);
    const actors = new Map<string, GameActor>();
    const sweeper = startSweeper({
      pool: db.pool,
      log: createLogger('silent'),
      clock,
      openGame: async (id) => {
        const opened = await GameActor.open(host, id);
        if (!(opened instanceof GameActor)) return false;
        actors.set(id, opened);
        return true;
      },
    });
    const n = { host, sweeper, actors };
    nodes.push(n);
    return n;
  };
  const sweep = async (n: { sweeper: Sweeper }) => {
    n.sweeper.kick();
    await n.sweeper.idle();
  };
  const row = async (id: string) =>
    (await db.pool.query('SELECT status, result, winner, termination, finished_at, host, lease_expires_at, move_deadline FROM games WHERE id = $1', [id]))
      .rows[0];
  const players = async () => ({ white: await insertUser(db.pool), black: await insertUser(db.pool) });

  it('finds the deadlines due within a horizon in one query, and none of the others', async () => {
    const { white, black } = await players();
    const now = clock.now();
    const [soon] = await insertCorrespondenceGames(db.pool, white, black, { daysPerMove: 1, turnStartedAt: new Date(now - DAY + 30_000) });
    const [later] = await insertCorrespondenceGames(db.pool, white, black, { daysPerMove: 1, turnStartedAt: new Date(now - DAY + 90_000) });
    const due = await findDueCorrespondenceGames(db.pool, new Date(now + CORRESPONDENCE_HORIZON_MS), 1000);
    assert.ok(due.includes(soon));
    assert.ok(!due.includes(later));
  });

  it('opens a game nobody hosts in the minute before its deadline, and its flag falls at the deadline', async () => {
    const { white, black } = await players();
    const startedAt = clock.now() - DAY + 5 * 60_000; // White's day ends in five minutes
    const [id] = await insertCorrespondenceGames(db.pool, white, black, { daysPerMove: 1, turnStartedAt: new Date(startedAt) });
    const deadline = startedAt + DAY;
    const a = await node('node-a');
    await sweep(a);
    assert.equal(a.host.find(id) ?? a.actors.get(id), undefined, 'four minutes before the horizon: no actor');
    assert.equal((await row(id)).host, null);

    await clock.advance(deadline - CORRESPONDENCE_HORIZON_MS - 1 - clock.now());
    await sweep(a);
    assert.equal(a.actors.get(id), undefined, 'a millisecond before the horizon: still none');
    await clock.advance(1);
    await sweep(a);
    assert.ok(a.actors.get(id), 'hosted within the minute before the deadline');
    assert.equal((await row(id)).host, 'node-a');

    await clock.advance(deadline - 1 - clock.now());
    assert.equal((await row(id)).status, 'active', 'a millisecond early: not flagged');
    await clock.advance(2);
    const ended = await until('flagged', async () => ((await row(id)).status !== 'active' ? row(id) : undefined), { ms: 5000 });
    assert.equal(ended.status, 'finished');
    assert.equal(ended.termination, 'timeout');
    assert.equal(ended.winner, 'black');
  });

  it('still flags a game after a restart: a new node over the same database, the deadline unmoved', async () => {
    const { white, black } = await players();
    const startedAt = clock.now() - DAY + 30_000;
    const [id] = await insertCorrespondenceGames(db.pool, white, black, { daysPerMove: 1, turnStartedAt: new Date(startedAt) });
    const a = await node('node-a');
    await sweep(a);
    const hosted = a.actors.get(id);
    assert.ok(hosted, 'the first node hosted it');
    // The first node shuts down (its room releases the game) and nobody runs for ten minutes.
    await a.sweeper.stop();
    await hosted.close(true);
    a.actors.delete(id);
    assert.equal((await row(id)).host, null, 'released');
    assert.equal((await row(id)).move_deadline.getTime(), startedAt + DAY, 'the release kept the deadline');
    clock.skip(10 * 60_000);

    const b = await node('node-b');
    await sweep(b);
    const reopened = b.actors.get(id);
    assert.ok(reopened, 'the new node hosts the overdue game');
    await clock.advance(1);
    const ended = await until('flagged', async () => ((await row(id)).status !== 'active' ? row(id) : undefined), { ms: 5000 });
    assert.equal(ended.status, 'finished', 'flagged at once: the time nobody hosted it was not forgiven');
    assert.equal(ended.termination, 'timeout');
    assert.equal(ended.winner, 'black');
  });

  it('moves the deadline on with each move: the row says the opponent now has the whole period', async () => {
    const { white, black } = await players();
    const [id] = await insertCorrespondenceGames(db.pool, white, black, { daysPerMove: 2, turnStartedAt: new Date(clock.now() - DAY) });
    const a = await node('node-a');
    const live = await GameActor.open(a.host, id);
    assert.ok(live instanceof GameActor);
    a.actors.set(id, live);
    await clock.advance(60_000);
    const moved = await live.execute(moveBy(white, 'e2e4'));
    assert.ok(moved.ok);
    assert.equal((await row(id)).move_deadline.getTime(), clock.now() + 2 * DAY);
    assert.equal(await findDueCorrespondenceGames(db.pool, new Date(clock.now() + 2 * DAY - 1)).then((d) => d.includes(id)), false);
  });
});
