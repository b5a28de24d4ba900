import assert from 'node:assert/strict';
import type { Pool } from '../../src/db/pool.ts';
import type { GameActor } from '../../src/services/gameActor.ts';
import { ManualClock, settle } from '../helpers/clock.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { liveGameFixture, moveBy, openLiveGame } from '../helpers/liveGames.ts';
import { insertActiveGame, insertCorrespondenceGames } from '../support/fixtures.ts';

// The commit window (MOVE_COMMIT_WINDOW_MS) holds a move batch for more moves; what must never
// wait in it: a correspondence move, a game's last move, a takeback. The window runs on the
// host's clock, a manual one here that never moves unless told: whatever answers without it
// did not wait.

let db: { pool: Pool; drop: () => Promise<void> };
const opened: GameActor[] = [];
const WINDOW_MS = 50;

describe('GameActor: what the commit window never holds', () => {
  before(async () => {
    db = await isolatedDatabase();
  });
  afterEach(async () => {
    for (const live of opened.splice(0)) await live.close(false);
  });
  after(() => db.drop());

  /** A host with a commit window on a manual clock, a blitz game on it, and the means to open more. */
  async function windowedHost() {
    const clock = new ManualClock(Date.now());
    const fixture = await liveGameFixture(db.pool, { firstMoveDeadline: new Date(clock.now() + 60_000) }, { moveCommitWindowMs: WINDOW_MS });
    const host = fixture.host('A', clock);
    const open = async (gameId: string) => {
      const live = await openLiveGame(host, gameId);
      opened.push(live);
      return live;
    };
    const blitz = () => insertActiveGame(db.pool, fixture.white, fixture.black, { firstMoveDeadline: new Date(clock.now() + 60_000) });
    return { ...fixture, clock, host, open, blitz, live: await open(fixture.gameId) };
  }

  /** Plays `m` after the window of the last batch closed: it leaves at once, and opens a window. */
  async function play(clock: ManualClock, live: GameActor, userId: string, m: string) {
    await clock.advance(WINDOW_MS);
    const r = await live.execute(moveBy(userId, m));
    assert.equal(r.ok, true, `${m}: ${JSON.stringify(r)}`);
  }

  /** Opens a game and sends White's first move right after a batch left: it waits in the window. */
  async function heldMove(h: Awaited<ReturnType<typeof windowedHost>>) {
    const { host } = h;
    const waiting = await h.open(await h.blitz());
    const batches = host.writer.stats.batches;
    let answered = false;
    const reply = waiting.execute(moveBy(h.white, 'd2d4')).finally(() => (answered = true));
    // Two turns of the event loop: the actor hands the write over, then a batch not held would leave.
    await settle();
    await settle();
    assert.deepEqual({ batches: host.writer.stats.batches, answered }, { batches, answered: false }, 'the move waits in the window');
    return { reply };
  }

  it("sends a correspondence move at once, and the other games' moves waiting in the window with it", async () => {
    const h = await windowedHost();
    const [correspondenceId] = await insertCorrespondenceGames(db.pool, h.white, h.black);
    const correspondence = await h.open(correspondenceId!);
    // A batch leaves (nothing went before it) and opens the window; the next move waits in it.
    assert.equal((await h.live.execute(moveBy(h.white, 'e2e4'))).ok, true);
    const { reply: held } = await heldMove(h);
    const before = h.host.writer.stats.batches;
    // On a clock that does not move: the correspondence move could not wait.
    assert.equal((await correspondence.execute(moveBy(h.white, 'e2e4'))).ok, true);
    assert.equal((await held).ok, true, 'the waiting move went with it');
    assert.deepEqual({ batches: h.host.writer.stats.batches - before, moves: h.host.writer.stats.moves }, { batches: 1, moves: 3 });
  });

  it("answers a game's last move at once while another game's move waits in the window", async () => {
    const h = await windowedHost();
    await play(h.clock, h.live, h.white, 'f2f3');
    await play(h.clock, h.live, h.black, 'e7e5');
    await play(h.clock, h.live, h.white, 'g2g4');
    const { reply: held } = await heldMove(h);
    const mate = await h.live.execute(moveBy(h.black, 'd8h4'));
    assert.equal(mate.ok, true, JSON.stringify(mate));
    assert.equal(h.live.status, 'finished');
    // The mate was its own transaction: the batch in the window still waits, and leaves when it closes.
    let answered = false;
    void held.finally(() => (answered = true));
    await settle();
    assert.equal(answered, false);
    await h.clock.advance(WINDOW_MS);
    assert.equal((await held).ok, true);
  });

  it("answers an accepted takeback at once while another game's move waits in the window", async () => {
    const h = await windowedHost();
    await play(h.clock, h.live, h.white, 'e2e4');
    await play(h.clock, h.live, h.black, 'e7e5');
    await play(h.clock, h.live, h.white, 'g1f3');
    const proposal = (await h.live.execute({ type: 'offer_takeback', userId: h.white })) as { ok: true; value: { takeback: { id: string } } };
    assert.equal(proposal.ok, true, JSON.stringify(proposal));
    const { reply: held } = await heldMove(h);
    const accepted = await h.live.execute({ type: 'answer_takeback', userId: h.black, takebackId: proposal.value.takeback.id, accept: true });
    assert.equal(accepted.ok, true, JSON.stringify(accepted));
    assert.equal(h.live.game.moveCount, 2);
    await h.clock.advance(WINDOW_MS);
    assert.equal((await held).ok, true);
  });
});
