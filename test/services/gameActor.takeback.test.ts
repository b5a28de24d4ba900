import assert from 'node:assert/strict';
import type { Pool } from '../../src/db/pool.ts';
import { ChessGame } from '../../src/domain/game.ts';
import { GameActor, type GameEvent } from '../../src/services/gameActor.ts';
import type { LiveGameHost } from '../../src/services/liveGameHost.ts';
import { ManualClock } from '../helpers/clock.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { failureCode, hearEvents, hearLost, liveGameFixture, moveBy, openLiveGame } from '../helpers/liveGames.ts';
import { expireLease } from '../support/fixtures.ts';

// A takeback rewrites the durable move log: these tests hold the actor, PostgreSQL and a node
// that takes the game over to the same board (DESIGN 2.11).

let db: { pool: Pool; drop: () => Promise<void> };
const opened: GameActor[] = [];
type Event = GameEvent & { v: number; ts: number };

async function open(host: LiveGameHost, gameId: string): Promise<GameActor> {
  const live = await openLiveGame(host, gameId);
  opened.push(live);
  return live;
}

async function playLine(live: GameActor, players: { white: string; black: string }, moves: string[]) {
  for (const m of moves) {
    const reply = await live.execute(moveBy(live.game.turn === 'white' ? players.white : players.black, m));
    assert.equal(reply.ok, true, `${m}: ${JSON.stringify(reply)}`);
  }
}

const propose = async (live: GameActor, userId: string) => {
  const reply = (await live.execute({ type: 'offer_takeback', userId })) as any;
  assert.equal(reply.ok, true, JSON.stringify(reply));
  return reply.value.takeback as { id: string; plies: number };
};
const answer = (live: GameActor, userId: string, takebackId: string, accept = true, key?: string) =>
  live.execute({ type: 'answer_takeback', userId, takebackId, accept }, key) as Promise<any>;

/** What PostgreSQL holds of the game's board: the row's snapshot and the move log. */
async function stored(pool: Pool, gameId: string) {
  const g = await pool.query('SELECT fen, pgn, move_count, event_seq, clock_running, white_time_ms, black_time_ms FROM games WHERE id = $1', [gameId]);
  const moves = await pool.query('SELECT ply, san FROM game_moves WHERE game_id = $1 ORDER BY ply', [gameId]);
  const back = await pool.query('SELECT takeback_id, ply, san FROM taken_back_moves WHERE game_id = $1 ORDER BY takeback_id, ply', [gameId]);
  const offers = await pool.query('SELECT id, status FROM takeback_offers WHERE game_id = $1 ORDER BY created_at', [gameId]);
  return { game: g.rows[0], moves: moves.rows.map((r) => `${r.ply}.${r.san}`), takenBack: back.rows.map((r) => `${r.ply}.${r.san}`), offers: offers.rows };
}

describe('GameActor: takebacks against PostgreSQL', () => {
  before(async () => {
    db = await isolatedDatabase();
  });
  afterEach(async () => {
    for (const live of opened.splice(0)) await live.close(false);
  });
  after(() => db.drop());

  async function manualGame(initialTime = 300) {
    const clock = new ManualClock(Date.now());
    const fixture = await liveGameFixture(db.pool, { initialTime, firstMoveDeadline: new Date(clock.now() + 60_000) }, { drawOfferTtlMs: 60_000 });
    const live = await open(fixture.host('A', clock), fixture.gameId);
    return { ...fixture, clock, live, players: { white: fixture.white, black: fixture.black } };
  }

  it('writes an accepted takeback in one transaction: move rows kept as taken back, the snapshot, the offer', async () => {
    const { pool, clock, live, players, white, black, gameId } = await manualGame();
    // Lean moves after ply 2: the row's snapshot lags the log when the takeback comes.
    await playLine(live, players, ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4']);
    assert.equal((await stored(pool, gameId)).game.move_count, 2);
    await clock.advance(3000);
    const takeback = await propose(live, black); // Black's turn: Black's last move and White's reply
    assert.equal(takeback.plies, 2);
    await clock.advance(2000);
    const times = live.times();
    const reply = await answer(live, white, takeback.id);
    assert.equal(reply.ok, true, JSON.stringify(reply));
    assert.deepEqual([reply.value.takeback.status, reply.value.game.move_count, reply.value.game.current_turn], ['accepted', 3, 'black']);

    const replayed = new ChessGame({ moves: ['e2e4', 'e7e5', 'g1f3'] });
    const s = await stored(pool, gameId);
    assert.deepEqual(s.moves, ['1.e4', '2.e5', '3.Nf3']);
    assert.deepEqual(s.takenBack, ['4.Nc6', '5.Bc4']);
    assert.deepEqual(s.offers, [{ id: takeback.id, status: 'accepted' }]);
    assert.deepEqual(
      [s.game.fen, s.game.pgn, s.game.move_count, s.game.event_seq, s.game.clock_running, s.game.white_time_ms / 1000, s.game.black_time_ms / 1000],
      [replayed.fen, '1. e4 e5 2. Nf3', 3, live.eventSeq, true, times.white, times.black],
    );
    assert.deepEqual([live.game.fen, [...live.game.sanList]], [replayed.fen, ['e4', 'e5', 'Nf3']]);

    // Play goes on at the plies the takeback freed.
    await clock.advance(1000);
    await playLine(live, players, ['g8f6', 'd2d4']);
    assert.deepEqual((await stored(pool, gameId)).moves, ['1.e4', '2.e5', '3.Nf3', '4.Nf6', '5.d4']);
  });

  it('is rebuilt from PostgreSQL by another node as it stood: board, move list, clocks, event number; play goes on', async () => {
    const { pool, clock, live, players, white, black, host, gameId } = await manualGame();
    await playLine(live, players, ['e2e4', 'd7d5', 'e4d5', 'd8d5', 'b1c3', 'd5a5', 'd2d4']);
    const takeback = await propose(live, white); // Black's turn: White's last move
    await clock.advance(1500);
    assert.equal((await answer(live, black, takeback.id)).ok, true);
    const before = { fen: live.game.fen, pgn: live.game.movetext, sans: [...live.game.sanList], v: live.eventSeq, times: live.times() };
    live.markLost(); // dies abruptly: no release
    await expireLease(pool, gameId);

    const other = await open(host('B', clock), gameId);
    assert.deepEqual(
      { fen: other.game.fen, pgn: other.game.movetext, sans: [...other.game.sanList], v: other.eventSeq, times: other.times() },
      before,
    );
    assert.equal(other.game.turn, 'white');
    assert.equal(other.chessClock.running, true);
    assert.equal(other.takebackOffer, null);
    // A second takeback by the same player, a new move at the freed ply, then on.
    const again = await propose(other, white);
    assert.equal(again.plies, 2);
    assert.equal(failureCode(await other.execute({ type: 'offer_takeback', userId: black })), 'TAKEBACK_PENDING');
    await playLine(other, players, ['g1f3', 'c8g4']);
    const s = await stored(pool, gameId);
    assert.deepEqual(s.moves.slice(-3), ['6.Qa5', '7.Nf3', '8.Bg4']);
    assert.deepEqual(s.takenBack, ['7.d4']);
    assert.deepEqual(s.offers.map((o: any) => o.status), ['accepted', 'expired']);
  });

  it('takes nothing back when fenced out: the node that lost the game changes nothing', async () => {
    const { pool, live, players, white, black, host, gameId } = await manualGame();
    await playLine(live, players, ['e2e4', 'e7e5', 'g1f3']);
    const takeback = await propose(live, white);
    const before = await stored(pool, gameId);
    let lost = false;
    hearLost(live, () => (lost = true));
    await expireLease(pool, gameId);
    const taker = await open(host('B'), gameId);
    const stale = await answer(live, black, takeback.id);
    assert.deepEqual([failureCode(stale), lost], ['SERVICE_UNAVAILABLE', true]);
    assert.deepEqual(await stored(pool, gameId), before);
    // The new owner holds the proposal, still pending, and may answer it.
    assert.equal(taker.takebackOffer?.id, takeback.id);
    assert.equal((await answer(taker, black, takeback.id)).ok, true);
    assert.deepEqual((await stored(pool, gameId)).moves, ['1.e4', '2.e5']);
  });

  it('leaves nothing half applied when the transaction fails midway; the game is rebuilt whole', async () => {
    const { pool, live, players, white, black, host, gameId } = await manualGame();
    await playLine(live, players, ['e2e4', 'e7e5', 'g1f3', 'b8c6']);
    const takeback = await propose(live, black);
    const before = await stored(pool, gameId);
    // The log is not what the actor believes: the statement closing the proposal finds nothing
    // to close, after the move rows were moved and the snapshot rewritten in the same transaction.
    await pool.query(`UPDATE takeback_offers SET status = 'declined' WHERE id = $1`, [takeback.id]);
    const failed = await answer(live, white, takeback.id);
    assert.equal(failureCode(failed), 'SERVICE_UNAVAILABLE');
    const after = await stored(pool, gameId);
    assert.deepEqual({ ...after, offers: before.offers }, before);
    assert.deepEqual(after.takenBack, []);
    // The node gave the game back: another rebuilds all four moves from PostgreSQL.
    await expireLease(pool, gameId);
    const other = await open(host('B'), gameId);
    assert.deepEqual([...other.game.sanList], ['e4', 'e5', 'Nf3', 'Nc6']);
  });

  it('lapses durably when anyone moves, and at its deadline (the actor\'s timer, on the injected clock)', async () => {
    const { pool, clock, live, players, white, black, host, gameId } = await manualGame();
    await playLine(live, players, ['e2e4', 'e7e5', 'g1f3']);
    const first = await propose(live, white);
    const events: Event[] = [];
    hearEvents(live, (e) => events.push(e as Event));
    await playLine(live, players, ['b8c6']);
    assert.deepEqual(events.map((e) => e.type), ['takeback_offer', 'move']);
    assert.equal((events[0] as any).takeback.status, 'expired');
    assert.deepEqual((await stored(pool, gameId)).offers, [{ id: first.id, status: 'expired' }]);
    assert.equal(failureCode(await answer(live, black, first.id)), 'TAKEBACK_NOT_PENDING');

    const second = await propose(live, black);
    await clock.advance(59_999);
    assert.equal(live.takebackOffer?.id, second.id);
    const lapsed = new Promise<void>((resolve) => hearEvents(live, (e) => e.type === 'takeback_offer' && resolve()));
    await clock.advance(2); // the timer looks a millisecond after the deadline
    await lapsed;
    assert.equal(live.takebackOffer, null);
    assert.deepEqual(events.slice(-1).map((e) => [e.type, (e as any).takeback?.status]), [['takeback_offer', 'expired']]);
    assert.deepEqual((await stored(pool, gameId)).offers.map((o: any) => o.status), ['expired', 'expired']);
    // A node rebuilding the game sees both proposals closed, and counts them against the limit.
    live.markLost();
    await expireLease(pool, gameId);
    const other = await open(host('B', clock), gameId);
    assert.equal(other.takebackOffer, null);
    assert.equal(other.state.takebacks.length, 2);
  });

  it("lapses durably with the game's end, beside a pending draw offer", async () => {
    const { pool, live, players, white, black, gameId } = await manualGame();
    await playLine(live, players, ['e2e4', 'e7e5', 'g1f3']);
    const takeback = await propose(live, white);
    assert.equal((await live.execute({ type: 'offer_draw', userId: white })).ok, true);
    assert.equal((await live.execute({ type: 'resign', userId: black })).ok, true);
    assert.deepEqual((await stored(pool, gameId)).offers, [{ id: takeback.id, status: 'expired' }]);
    const draws = await pool.query('SELECT status FROM draw_offers WHERE game_id = $1', [gameId]);
    assert.deepEqual(draws.rows, [{ status: 'expired' }]);
  });

  it('answers a retried accept (the same key) as the first time and takes back once', async () => {
    const { pool, live, players, white, black, gameId } = await manualGame();
    await playLine(live, players, ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4']);
    const takeback = await propose(live, white);
    const [a, b] = await Promise.all([answer(live, black, takeback.id, true, 'k1'), answer(live, black, takeback.id, true, 'k1')]);
    assert.deepEqual(a, b);
    assert.equal((await answer(live, black, takeback.id, true, 'k1')).value.game.move_count, 4);
    assert.deepEqual((await stored(pool, gameId)).moves, ['1.e4', '2.e5', '3.Nf3', '4.Nc6']);
  });

  it('refuses takebacks in an arena game', async () => {
    const { pool, host, white, black, gameId } = await liveGameFixture(db.pool, { firstMoveDeadline: null });
    const { rows } = await pool.query(
      `INSERT INTO tournaments (name, creator_id, time_control, initial_time, increment, rated, starts_at, ends_at, created_at)
       VALUES ('Arena', $1, 'blitz', 300, 0, true, now(), now() + interval '1 hour', now()) RETURNING id`,
      [white],
    );
    await pool.query('UPDATE games SET tournament_id = $2 WHERE id = $1', [gameId, rows[0].id]);
    const live = await open(host('A'), gameId);
    await playLine(live, { white, black }, ['e2e4', 'e7e5', 'g1f3']);
    assert.equal(failureCode(await live.execute({ type: 'offer_takeback', userId: white })), 'TAKEBACK_NOT_ALLOWED');
  });
});
