import assert from 'node:assert/strict';
import { markGone, markSeen } from '../../src/db/friends.ts';
import { createPresence, ONLINE_WINDOW_MS } from '../../src/services/presence.ts';
import { ManualClock } from '../helpers/clock.ts';
import { until } from '../helpers/poll.ts';
import { createLogger } from '../../src/logger.ts';
import type { Pool } from '../../src/db/pool.ts';
import { insertUser } from '../support/fixtures.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';

let db: { pool: Pool; drop: () => Promise<void> };

const lastSeen = async (id: string) =>
  ((await db.pool.query('SELECT last_seen_at FROM users WHERE id = $1', [id])).rows[0].last_seen_at as Date | null)?.getTime() ?? null;

describe('presence writes (users.last_seen_at) against PostgreSQL', () => {
  before(async () => {
    db = await isolatedDatabase();
  });
  after(() => db.drop());

  it("skips a user whose row another transaction holds instead of waiting for it (it deadlocked with a game's finish)", async () => {
    const [busy, free] = [await insertUser(db.pool), await insertUser(db.pool)];
    // A game finishing holds its players' rows until it commits.
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('UPDATE users SET games_played = games_played + 1 WHERE id = $1', [busy]);
      const at = new Date(Date.now() - 1000);
      // Waiting for the row would last until the statement timeout and fail.
      await markSeen(db.pool, [busy, free], at);
      assert.equal(await lastSeen(free), at.getTime());
      assert.equal(await lastSeen(busy), null);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    const later = new Date();
    await markSeen(db.pool, [busy, free], later);
    assert.deepEqual([await lastSeen(busy), await lastSeen(free)], [later.getTime(), later.getTime()]);
  });

  it('never moves last_seen_at back', async () => {
    const id = await insertUser(db.pool);
    const now = new Date();
    await markSeen(db.pool, [id], now);
    await markSeen(db.pool, [id], new Date(now.getTime() - 60_000));
    assert.equal(await lastSeen(id), now.getTime());
  });

  it('marks a user offline when their last socket closes, unless a sign of life came since', async () => {
    const id = await insertUser(db.pool);
    const now = Date.now();
    await markSeen(db.pool, [id], new Date(now));
    await markGone(db.pool, id, new Date(now - ONLINE_WINDOW_MS), new Date(now + 1));
    assert.equal(await lastSeen(id), now - ONLINE_WINDOW_MS);
    // A reload's new socket wrote after the close: it stands.
    await markSeen(db.pool, [id], new Date(now + 5));
    await markGone(db.pool, id, new Date(now - ONLINE_WINDOW_MS), new Date(now + 5));
    assert.equal(await lastSeen(id), now + 5);
  });

  it("writes a user's first socket at once, though a request's write within the minute was skipped (its row was held)", async () => {
    const clock = new ManualClock(Date.now());
    const presence = createPresence({ pool: db.pool, clock, log: createLogger('silent') });
    const id = await insertUser(db.pool);
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [id]);
      // A request while another transaction (a token's creation) holds the row: its write skips it.
      presence.seen(id);
      assert.equal(await lastSeen(id), null);
      await holder.query('COMMIT');
      await clock.advance(1000);
      presence.hold(id);
      await until('online', async () => (await lastSeen(id)) === clock.now());
    } finally {
      holder.release();
      presence.stop();
    }
  });

  it('a closed tab (its last socket released) is offline at once; another socket of the user keeps them online', async () => {
    const clock = new ManualClock(Date.now());
    const presence = createPresence({ pool: db.pool, clock, log: createLogger('silent') });
    try {
      const id = await insertUser(db.pool);
      const online = async () => presence.isOnline(((await db.pool.query('SELECT last_seen_at FROM users WHERE id = $1', [id])).rows[0].last_seen_at as Date | null));
      const first = presence.hold(id);
      const second = presence.hold(id);
      await until('online', async () => (await online()) === true);
      await clock.advance(1000);
      first();
      await presence.flush();
      assert.equal(await online(), true, 'the other tab still holds a socket');
      await clock.advance(1000);
      second();
      await until('offline', async () => (await online()) === false);
      // The next socket (a reload) is online again at once.
      await clock.advance(1000);
      presence.hold(id);
      await until('online', async () => (await online()) === true);
    } finally {
      presence.stop();
    }
  });
});
