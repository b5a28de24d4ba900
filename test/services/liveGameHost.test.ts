import assert from 'node:assert/strict';
import type { Pool } from '../../src/db/pool.ts';
import { ManualClock } from '../helpers/clock.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { liveGameFixture, openLiveGame, renewalRounds } from '../helpers/liveGames.ts';

let db: { pool: Pool; drop: () => Promise<void> };

const leaseOf = async (gameId: string) => {
  const { rows } = await db.pool.query('SELECT lease_expires_at, hosted_at FROM games WHERE id = $1', [gameId]);
  return { expiresAt: (rows[0].lease_expires_at as Date).getTime(), hostedAt: (rows[0].hosted_at as Date | null)?.getTime() ?? null };
};

describe('LiveGameHost: the leases of its games', () => {
  before(async () => {
    db = await isolatedDatabase();
  });
  after(() => db.drop());

  it('renews them every third of a lease on its clock, recording when it hosted them, and stops with its last game', async () => {
    const clock = new ManualClock(Date.now());
    const fx = await liveGameFixture(db.pool, { firstMoveDeadline: new Date(clock.now() + 600_000) }, { gameLeaseMs: 15_000 });
    const host = fx.host('A', clock);
    const live = await openLiveGame(host, fx.gameId);
    try {
      const rounds = renewalRounds(host);
      const timers = clock.pending;
      host.register(live);
      assert.equal(clock.pending, timers + 1, "the renewal waits on the host's clock");
      // As if the lease were about to run out: a renewal gives it a whole lease again.
      await db.pool.query(`UPDATE games SET lease_expires_at = now() WHERE id = $1`, [fx.gameId]);
      const lapsing = await leaseOf(fx.gameId);
      await clock.advance(4_999);
      assert.equal(rounds.count, 0);
      await clock.advance(1);
      await rounds.reached(1);
      const renewed = await leaseOf(fx.gameId);
      assert.equal(renewed.hostedAt, clock.now());
      assert.ok(renewed.expiresAt >= lapsing.expiresAt + 14_000, 'the lease runs a whole lease from the renewal');
      await clock.advance(5_000);
      await rounds.reached(2);
      assert.equal((await leaseOf(fx.gameId)).hostedAt, clock.now());

      host.unregister(live);
      assert.equal(clock.pending, timers);
      await clock.advance(15_000);
      assert.equal(rounds.count, 2, 'no renewal without a game');
    } finally {
      host.close();
      await live.close(false);
    }
  });
});
