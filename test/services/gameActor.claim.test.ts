import assert from 'node:assert/strict';
import type { Pool } from '../../src/db/pool.ts';
import type { GameActor } from '../../src/services/gameActor.ts';
import { ManualClock } from '../helpers/clock.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { failureCode, liveGameFixture, moveBy, openLiveGame } from '../helpers/liveGames.ts';
import { expireLease } from '../support/fixtures.ts';

/** DESIGN 2.11, claim, across a takeover: the rebuilt game knows who had joined the room before. */
describe('GameActor: the claim count across a takeover', () => {
  let db: { pool: Pool; drop: () => Promise<void> };
  const opened: GameActor[] = [];
  before(async () => {
    db = await isolatedDatabase();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((live) => live.close(true)));
  });
  after(() => db.drop());

  it('counts a player who had joined and has no client in the rebuilt room as gone since the rebuild; one who never joined, never', async () => {
    const clock = new ManualClock(Date.now());
    const claimMs = 30_000;
    const { pool, host, white, black, gameId } = await liveGameFixture(db.pool, { firstMoveDeadline: new Date(clock.now() + 60_000) }, { claimMs });
    const first = await openLiveGame(host('A', clock), gameId);
    opened.push(first);
    first.notePresence('white', true); // White's client joined the room on node A; Black plays over REST
    assert.equal((await first.execute(moveBy(white, 'e2e4'))).ok, true);
    assert.equal((await first.execute(moveBy(black, 'e7e5'))).ok, true);

    // Node A dies: its lease lapses and node B rebuilds the game, with nobody in its room yet.
    first.markLost();
    await expireLease(pool, gameId);
    await clock.advance(5_000);
    const rebuiltAt = clock.now();
    const second = await openLiveGame(host('B', clock), gameId);
    opened.push(second);
    assert.equal(second.claimableAt('white'), rebuiltAt + claimMs);
    assert.equal(second.claimableAt('black'), null, 'Black never joined a room');

    await clock.advance(claimMs - 1);
    assert.equal(failureCode(await second.execute({ type: 'claim', userId: black, result: 'win' })), 'CLAIM_NOT_ALLOWED');
    await clock.advance(1);
    const claimed = (await second.execute({ type: 'claim', userId: black, result: 'win' })) as any;
    assert.deepEqual([claimed.value.status, claimed.value.winner, claimed.value.termination], ['finished', 'black', 'timeout']);
  });

  describe('a player who acts while gone (DESIGN 2.11: "the count starts again")', () => {
    it('starts the count again from any command of the gone player, refused or not, and from none of the opponent\'s', async () => {
      const clock = new ManualClock(Date.now());
      const claimMs = 30_000;
      const { host, white, black, gameId } = await liveGameFixture(db.pool, { firstMoveDeadline: new Date(clock.now() + 60_000) }, { claimMs });
      const live = await openLiveGame(host('A', clock), gameId);
      opened.push(live);
      assert.equal((await live.execute(moveBy(white, 'e2e4'))).ok, true);
      assert.equal((await live.execute(moveBy(black, 'e7e5'))).ok, true);
      live.notePresence('white', true);
      live.notePresence('white', false);
      const gone = clock.now();
      assert.equal(live.claimableAt('white'), gone + claimMs);

      await clock.advance(claimMs);
      assert.equal(failureCode(await live.execute({ type: 'offer_takeback', userId: black })), 'TAKEBACK_NOT_ALLOWED');
      assert.equal(live.claimableAt('white'), gone + claimMs, 'the opponent acting changes nothing');
      assert.equal(failureCode(await live.execute(moveBy(white, 'e4e5'))), 'INVALID_MOVE');
      assert.equal(live.claimableAt('white'), clock.now() + claimMs, 'a refused move is an act');
      await clock.advance(claimMs);
      assert.equal((await live.execute({ type: 'chat', userId: white })).ok, true);
      assert.equal(live.claimableAt('white'), clock.now() + claimMs, 'a chat message is an act');
      assert.equal(failureCode(await live.execute({ type: 'claim', userId: black, result: 'win' })), 'CLAIM_NOT_ALLOWED');
      await clock.advance(claimMs);
      assert.equal((await live.execute({ type: 'claim', userId: black, result: 'win' })).ok, true, 'still gone: the new count ends');
    });
  });
});
