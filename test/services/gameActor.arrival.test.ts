import { findGame } from '../../src/db/games.ts';
import assert from 'node:assert/strict';
import type { Config } from '../../src/config.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { GameActor } from '../../src/services/gameActor.ts';
import { ManualClock } from '../helpers/clock.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { failureCode, liveGameFixture, moveBy, openLiveGame } from '../helpers/liveGames.ts';
import { holdGameRow, type HeldRow } from '../helpers/rowLock.ts';

let db: { pool: Pool; drop: () => Promise<void> };
const opened: GameActor[] = [];
const held: HeldRow[] = [];

/**
 * DESIGN 2.4: a command is timed when it reaches the service. Here it reaches the actor while an
 * earlier command's write waits for a row another transaction holds, and the deadline passes on
 * the manual clock (its timer fires) before the command's turn comes.
 */
describe('GameActor against PostgreSQL: a command that waited inside the service', () => {
  before(async () => {
    db = await isolatedDatabase();
  });
  afterEach(async () => {
    await Promise.all(held.splice(0).map((row) => row.release()));
    await Promise.all(opened.splice(0).map((live) => live.close(true)));
  });
  after(() => db.drop());

  async function manualGame(game: Parameters<typeof liveGameFixture>[1] = {}, config: Partial<Config> = {}) {
    const clock = new ManualClock(Date.now());
    const fixture = await liveGameFixture(db.pool, { firstMoveDeadline: new Date(clock.now() + 60_000), ...game }, config);
    const live = await openLiveGame(fixture.host('A', clock), fixture.gameId);
    opened.push(live);
    return { ...fixture, clock, live };
  }

  /** White's draw offer stalls on the held row: every later command of the game queues behind it. */
  async function stallBehindOffer(pool: Pool, live: GameActor, gameId: string, userId: string) {
    const row = await holdGameRow(pool, gameId);
    held.push(row);
    const offer = live.execute({ type: 'offer_draw', userId });
    await row.blocking(/draw_offers/);
    return { row, offer };
  }

  it('accepts a move that reached the service 1 ms before the flag, though the flag timer fired while it waited', async () => {
    const { pool, clock, live, white, black, gameId } = await manualGame({ initialTime: 1, increment: 0 });
    for (const [who, m] of [[white, 'e2e4'], [black, 'e7e5']] as const) assert.equal((await live.execute(moveBy(who, m))).ok, true);
    const flagAt = live.chessClock.flagAt()!;
    const { row, offer } = await stallBehindOffer(pool, live, gameId, white);
    await clock.advance(flagAt - 1 - clock.now());
    const move = live.execute({ ...moveBy(white, 'g1f3'), receivedAt: clock.now() });
    await clock.advance(2000);
    assert.equal(live.status, 'active', 'the flag timer waits its turn behind the queued move');
    await row.release();
    assert.equal((await offer).ok, true);
    const reply = (await move) as any;
    assert.equal(reply.ok, true, JSON.stringify(reply));
    assert.deepEqual([reply.value.game.status, reply.value.game.white_time_remaining, reply.value.game.black_time_remaining], ['active', 0.001, 1]);
    assert.equal(live.status, 'active');
    // As every read shows it: the row's snapshot with the appended moves folded in (migration 017).
    const stored = (await findGame(pool, gameId))!;
    assert.deepEqual({ status: stored.status, moveCount: stored.moveCount, whiteTimeMs: stored.whiteTimeMs }, { status: 'active', moveCount: 3, whiteTimeMs: 1 });
  });

  it('refuses a move that reached the service at the flag instant, after the same wait', async () => {
    const { pool, clock, live, white, black, gameId } = await manualGame({ initialTime: 1, increment: 0 });
    for (const [who, m] of [[white, 'e2e4'], [black, 'e7e5']] as const) assert.equal((await live.execute(moveBy(who, m))).ok, true);
    const flagAt = live.chessClock.flagAt()!;
    const { row } = await stallBehindOffer(pool, live, gameId, white);
    await clock.advance(flagAt - clock.now());
    const move = live.execute({ ...moveBy(white, 'g1f3'), receivedAt: clock.now() });
    await clock.advance(2000);
    await row.release();
    const reply = (await move) as any;
    assert.equal(failureCode(reply), 'GAME_NOT_ACTIVE');
    assert.equal(live.ending?.termination, 'timeout');
  });

  it('accepts a first move that reached the service before its deadline, though the deadline timer fired while it waited', async () => {
    const { pool, clock, live, white, gameId } = await manualGame({ initialTime: 60 }, { firstMoveMs: 30_000 });
    // White's first move is made at once, so Black's own first-move deadline is known.
    assert.equal((await live.execute(moveBy(white, 'e2e4'))).ok, true);
    const deadline = live.state.firstMoveDeadline!;
    const { row, offer } = await stallBehindOffer(pool, live, gameId, white);
    await clock.advance(deadline - 1 - clock.now());
    const black = live.seat('black').id;
    const move = live.execute({ ...moveBy(black, 'e7e5'), receivedAt: clock.now() });
    await clock.advance(2000);
    await row.release();
    assert.equal((await offer).ok, true);
    const reply = (await move) as any;
    assert.equal(reply.ok, true, JSON.stringify(reply));
    assert.deepEqual([live.status, live.game.moveCount], ['active', 2]);
  });
});
