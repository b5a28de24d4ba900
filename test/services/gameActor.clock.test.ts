import assert from 'node:assert/strict';
import { Chess } from 'chess.js';
import type { Config } from '../../src/config.ts';
import type { Pool } from '../../src/db/pool.ts';
import { GameActor, type GameEvent } from '../../src/services/gameActor.ts';
import { LiveGameHost } from '../../src/services/liveGameHost.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { expireLease } from '../support/fixtures.ts';
import { failureCode, hearEvents, liveGameFixture, moveBy, openLiveGame, renewalRounds, uci } from '../helpers/liveGames.ts';
import { EarlyClock, ManualClock } from '../helpers/clock.ts';

let db: { pool: Pool; drop: () => Promise<void> };
const opened: GameActor[] = [];

/** A live game actor against its own database; `config` overrides the service's settings. */
const setup = (o: Parameters<typeof liveGameFixture>[1] = {}, config: Partial<Config> = {}) => liveGameFixture(db.pool, o, config);


async function open(host: LiveGameHost, gameId: string): Promise<GameActor> {
  const live = await openLiveGame(host, gameId);
  opened.push(live);
  return live;
}

type Event = GameEvent & { v: number; ts: number };

/** Resolves with the game's next event of `type`. */
function nextEvent<T extends Event['type']>(live: GameActor, type: T, timeoutMs = 5000): Promise<Extract<Event, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} event within ${timeoutMs} ms`)), timeoutMs);
    const stop = hearEvents(live, (event) => {
      if (event.type !== type) return;
      clearTimeout(timer);
      stop();
      resolve(event as Extract<Event, { type: T }>);
    });
  });
}

/** Plays UCI moves alternately, White first; every one must be accepted. */
async function playLine(live: GameActor, players: { white: string; black: string }, moves: string[]) {
  let reply: any;
  for (const [i, m] of moves.entries()) {
    reply = await live.execute(moveBy(i % 2 === 0 ? players.white : players.black, m));
    assert.equal(reply.ok, true, `${m}: ${JSON.stringify(reply)}`);
  }
  return reply.value;
}

async function gameRow(pool: Pool, gameId: string) {
  const { rows } = await pool.query(
    `SELECT status, result, winner, termination, abort_reason, white_time_ms, black_time_ms, clock_running,
            turn_started_at, white_rating_change, black_rating_change, move_count
       FROM games WHERE id = $1`,
    [gameId],
  );
  return rows[0];
}

// White takes every black piece while Black hangs them (capturing only when every other move is
// illegal): Black is left with a bare king, White (with mating material) to move. Found with a
// seeded search over chess.js.
const BARE_KING_LINE = [
  'e2e3', 'b7b5', 'f1b5', 'b8a6', 'b5a6', 'h7h5', 'a6c8', 'a7a6', 'c8d7', 'e8d7', 'd1h5', 'g8h6', 'h5h6', 'h8h7',
  'h6h7', 'f7f5', 'h7f5', 'e7e6', 'f5f8', 'd8f6', 'f8f6', 'g7g5', 'f6g5', 'e6e5', 'g5e5', 'a6a5', 'e5c7', 'd7e8',
  'c7a5', 'a8d8', 'a5d8', 'e8f7',
];

describe('GameActor against PostgreSQL: clocks and rehydration', () => {
  before(async () => {
    db = await isolatedDatabase();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((live) => live.close(true)));
  });
  after(() => db.drop());

  describe('clocks (on a manual clock: no test waits for the time it describes)', () => {
    /** A game on a host whose clock moves only when the test says so. */
    async function manualGame(game: Parameters<typeof setup>[0] = {}, config: Partial<Config> = {}, clock = new ManualClock(Date.now())) {
      const fixture = await setup({ firstMoveDeadline: new Date(clock.now() + 60_000), ...game }, config);
      const live = await open(fixture.host('A', clock), fixture.gameId);
      return { ...fixture, clock, live };
    }

    it("charges no time and gives no increment before Black's first move", async () => {
      const { pool, clock, live, white, black, gameId } = await manualGame({ initialTime: 1, increment: 3 });
      await clock.advance(150);
      const first = (await live.execute(moveBy(white, 'e2e4'))) as any;
      assert.deepEqual([first.value.game.white_time_remaining, first.value.game.black_time_remaining], [1, 1]);
      assert.equal(live.chessClock.flagAt(), null);
      await clock.advance(150);
      const second = (await live.execute(moveBy(black, 'e7e5'))) as any;
      assert.deepEqual([second.value.game.white_time_remaining, second.value.game.black_time_remaining], [1, 1]);
      const { rows } = await pool.query('SELECT ply, clock_ms FROM game_moves WHERE game_id = $1 ORDER BY ply', [gameId]);
      assert.deepEqual(rows, [{ ply: 1, clock_ms: 1000 }, { ply: 2, clock_ms: 1000 }]);
    });

    it("runs White's clock from Black's first move on", async () => {
      const { pool, clock, live, white, black, gameId } = await manualGame({ initialTime: 1, increment: 0 });
      await playLine(live, { white, black }, ['e2e4', 'e7e5']);
      assert.ok(live.chessClock.running);
      const row = await gameRow(pool, gameId);
      assert.equal(row.clock_running, true);
      assert.equal(row.turn_started_at.getTime(), clock.now());
      await clock.advance(200);
      assert.deepEqual(live.times(), { white: 0.8, black: 1 });
    });

    it('ends the game by timeout when the flag falls, the opponent winning', async () => {
      const { pool, clock, live, white, black, gameId } = await manualGame({ initialTime: 1, increment: 0 });
      await playLine(live, { white, black }, ['e2e4', 'e7e5']);
      const flagAt = live.chessClock.flagAt()!;
      const ended = nextEvent(live, 'game_end');
      await clock.advance(999);
      assert.equal(live.status, 'active');
      await clock.advance(2);
      const end = await ended;
      assert.equal(end.ts, flagAt + 1);
      assert.deepEqual(end.result, { result: '0-1', winner: 'black', termination: 'timeout', rating_changes: end.result.rating_changes });
      assert.equal(end.status, 'finished');
      const row = await gameRow(pool, gameId);
      assert.deepEqual(
        [row.status, row.result, row.winner, row.termination, row.white_time_ms, row.clock_running],
        ['finished', '0-1', 'black', 'timeout', 0, false],
      );
      assert.ok(row.black_rating_change > 0 && row.white_rating_change < 0);
    });

    it('draws on time when the opponent of the flagged side has only a king', async () => {
      const { pool, clock, live, white, black, gameId } = await manualGame({ initialTime: 1, increment: 0 });
      await playLine(live, { white, black }, BARE_KING_LINE);
      const reference = new Chess();
      for (const m of BARE_KING_LINE) reference.move(uci(m));
      assert.equal(live.game.fen, reference.fen());
      assert.equal(live.game.turn, 'white');
      const ended = nextEvent(live, 'game_end');
      await clock.advance(1001);
      const end = await ended;
      assert.deepEqual([end.result.result, end.result.winner, end.result.termination], ['1/2-1/2', null, 'timeout']);
      const row = await gameRow(pool, gameId);
      assert.deepEqual([row.status, row.result, row.winner, row.termination, row.white_time_ms], ['finished', '1/2-1/2', null, 'timeout', 0]);
    });

    it('refuses a move that arrives after the flag, before the flag timer fired, and ends the game by timeout', async () => {
      const { pool, clock, live, white, black, gameId } = await manualGame({ initialTime: 1, increment: 0 });
      await playLine(live, { white, black }, ['e2e4', 'e7e5']);
      const ended = nextEvent(live, 'game_end');
      clock.skip(1000); // the flag timer is late: the move gets there first
      const reply = await live.execute(moveBy(white, 'g1f3'));
      assert.equal(reply.ok, false);
      assert.equal(failureCode(reply), 'GAME_NOT_ACTIVE');
      assert.match(reply.ok ? '' : reply.error.message, /time/, 'the move itself discovered the flag');
      const end = await ended;
      assert.deepEqual([end.result.result, end.result.winner, end.result.termination], ['0-1', 'black', 'timeout']);
      const row = await gameRow(pool, gameId);
      assert.deepEqual([row.status, row.termination, row.move_count, row.white_time_ms], ['finished', 'timeout', 2, 0]);
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM game_moves WHERE game_id = $1', [gameId]);
      assert.equal(rows[0].n, 2);
    });

    it('adds the increment to the mover after each timed move', async () => {
      const { pool, clock, live, white, black, gameId } = await manualGame({ initialTime: 60, increment: 2 });
      await playLine(live, { white, black }, ['e2e4', 'e7e5']);
      await clock.advance(100);
      const third = (await live.execute(moveBy(white, 'g1f3'))) as any;
      assert.equal(third.value.game.white_time_remaining, 61.9);
      await clock.advance(2500);
      const fourth = (await live.execute(moveBy(black, 'b8c6'))) as any;
      assert.equal(fourth.value.game.black_time_remaining, 59.5);
      const { rows } = await pool.query('SELECT clock_ms FROM game_moves WHERE game_id = $1 ORDER BY ply', [gameId]);
      assert.deepEqual(rows.map((r) => r.clock_ms), [60_000, 60_000, 61_900, 59_500]);
    });

    it('aborts the game when White does not move in time: abandoned, no_first_move, unrated', async () => {
      const clock = new ManualClock(Date.now());
      const { pool, host, white, black, gameId } = await setup(
        { initialTime: 60, rated: true, firstMoveDeadline: new Date(clock.now() + 300) },
        { firstMoveMs: 300 },
      );
      const live = await open(host('A', clock), gameId);
      const ended = nextEvent(live, 'game_end');
      await clock.advance(299);
      assert.equal(live.status, 'active');
      await clock.advance(2);
      const end = await ended;
      assert.deepEqual([end.status, end.abort_reason], ['abandoned', 'no_first_move']);
      assert.deepEqual(end.result, { result: null, winner: null, termination: null, rating_changes: { white: 0, black: 0 } });
      const row = await gameRow(pool, gameId);
      assert.deepEqual(
        [row.status, row.abort_reason, row.result, row.winner, row.termination, row.white_rating_change, row.black_rating_change],
        ['abandoned', 'no_first_move', null, null, null, 0, 0],
      );
      const ratings = await pool.query('SELECT count(*)::int AS n FROM user_ratings WHERE user_id = ANY($1::uuid[])', [[white, black]]);
      assert.equal(ratings.rows[0].n, 0);
      const stats = await pool.query('SELECT games_played FROM users WHERE id = ANY($1::uuid[])', [[white, black]]);
      assert.deepEqual(stats.rows.map((r) => r.games_played), [0, 0]);
    });

    it("aborts the game when Black does not answer White's first move in time", async () => {
      const { pool, clock, live, white, gameId } = await manualGame({ initialTime: 60 }, { firstMoveMs: 30_000 });
      assert.equal((await live.execute(moveBy(white, 'e2e4'))).ok, true);
      const ended = nextEvent(live, 'game_end');
      await clock.advance(30_001);
      const end = await ended;
      assert.deepEqual([end.status, end.abort_reason], ['abandoned', 'no_first_move']);
      const row = await gameRow(pool, gameId);
      assert.deepEqual([row.status, row.abort_reason, row.move_count, row.white_rating_change], ['abandoned', 'no_first_move', 1, 0]);
    });

    it('publishes nothing between events of a quiet game and keeps no timer but its flag (the watchers tick, not the room)', async () => {
      const clock = new ManualClock(Date.now());
      const fixture = await setup({ initialTime: 600, firstMoveDeadline: new Date(clock.now() + 60_000) });
      const published: string[] = [];
      const host = fixture.host('A', clock, (_, event) => published.push(`${event.type}:${event.v}`));
      const live = await open(host, fixture.gameId);
      await playLine(live, { white: fixture.white, black: fixture.black }, ['e2e4', 'e7e5']);
      assert.ok(live.chessClock.running);
      await clock.advance(30_000);
      assert.deepEqual(published, ['move:1', 'move:2']);
      assert.equal(clock.pending, 1, "White's flag");
    });

    it('lapses a draw offer at its expiry', async () => {
      const { pool, clock, live, white, black } = await manualGame({ initialTime: 300 }, { drawOfferTtlMs: 60_000 });
      await playLine(live, { white, black }, ['e2e4', 'e7e5']);
      const offered = (await live.execute({ type: 'offer_draw', userId: white })) as any;
      const lapsed = nextEvent(live, 'draw_offer');
      await clock.advance(60_001); // its timer is a millisecond late, on purpose (gameActor.ts armTimers)
      const event = await lapsed;
      assert.deepEqual([event.draw_offer.id, event.draw_offer.status], [offered.value.draw_offer.id, 'expired']);
      const { rows } = await pool.query('SELECT status FROM draw_offers WHERE id = $1', [offered.value.draw_offer.id]);
      assert.equal(rows[0].status, 'expired');
      assert.equal(live.drawOffer, null);
    });

    it('lapses a draw offer at its expiry when its timer fires a millisecond early', async () => {
      const { clock, live, white, black } = await manualGame({ initialTime: 300 }, { drawOfferTtlMs: 60_000 }, new EarlyClock(Date.now()));
      await playLine(live, { white, black }, ['e2e4', 'e7e5']);
      await live.execute({ type: 'offer_draw', userId: white });
      const lapsed = nextEvent(live, 'draw_offer');
      await clock.advance(60_001); // its timer is a millisecond late, on purpose (gameActor.ts armTimers)
      assert.equal((await lapsed).draw_offer.status, 'expired');
    });
  });

  describe('clocks across an outage (time no node hosted the game is charged to nobody)', () => {
    it('charges the turn in progress up to the last lease renewal of the node that died', async () => {
      const clock = new ManualClock(Date.now());
      const { pool, host, white, black, gameId } = await setup({ initialTime: 60, firstMoveDeadline: new Date(clock.now() + 60_000) });
      const a = host('A', clock);
      const first = await open(a, gameId);
      a.register(first);
      await playLine(first, { white, black }, ['e2e4', 'e7e5']);
      await clock.advance(4000);
      await a.renewAll(); // A still hosts the game 4 s into White's turn…
      first.markLost(); // …then dies without a word, and nobody hosts it for 20 s.
      a.close();
      await clock.advance(20_000);
      await expireLease(pool, gameId);
      const second = await open(host('B', clock), gameId);
      assert.deepEqual(second.times(), { white: 56, black: 60 });
      await clock.advance(1000);
      const reply = (await second.execute(moveBy(white, 'g1f3'))) as any;
      assert.equal(reply.value.game.white_time_remaining, 55);
    });

    it('moves the first-move deadline on by the time nobody hosted the game', async () => {
      const clock = new ManualClock(Date.now());
      const { pool, host, gameId } = await setup({ initialTime: 60, firstMoveDeadline: new Date(clock.now() + 30_000) }, { firstMoveMs: 30_000 });
      const a = host('A', clock);
      const first = await open(a, gameId);
      const rounds = renewalRounds(a);
      a.register(first);
      // A renews its lease on its clock, at 5 s and 10 s (one round after the other: each records
      // when A hosted the game, so the later must land last)…
      await clock.advance(5_000);
      await rounds.reached(1);
      await clock.advance(5_000);
      await rounds.reached(2);
      first.markLost(); // …then dies.
      a.close();
      await clock.advance(50_000); // down for longer than the whole deadline
      await expireLease(pool, gameId);
      const second = await open(host('B', clock), gameId);
      const ended = nextEvent(second, 'game_end');
      await clock.advance(19_000);
      assert.equal(second.status, 'active', 'White still has the 20 s left when the node died');
      await clock.advance(1001);
      assert.equal((await ended).abort_reason, 'no_first_move');
    });

    it('books the running turn on a graceful release, so the next owner charges nothing twice', async () => {
      const clock = new ManualClock(Date.now());
      const { pool, host, white, black, gameId } = await setup({ initialTime: 60, firstMoveDeadline: new Date(clock.now() + 60_000) });
      const first = await open(host('A', clock), gameId);
      await playLine(first, { white, black }, ['e2e4', 'e7e5']);
      await clock.advance(3000);
      await first.close(true);
      opened.splice(opened.indexOf(first), 1);
      await clock.advance(30_000);
      const second = await open(host('B', clock), gameId);
      assert.deepEqual(second.times(), { white: 57, black: 60 });
      const row = await gameRow(pool, gameId);
      assert.equal(row.turn_started_at.getTime(), clock.now());
    });
  });

  describe('rehydration of a pending draw offer', () => {
    it('keeps the offer and the event number, and the recipient can accept it on the new host', async () => {
      const { pool, host, white, black, gameId } = await setup({ initialTime: 60 });
      const first = await open(host('A'), gameId);
      await playLine(first, { white, black }, ['e2e4', 'e7e5']);
      const offered = await first.execute({ type: 'offer_draw', userId: white });
      assert.equal(offered.ok, true);
      const before = { offer: { ...first.drawOffer! }, v: first.eventSeq };
      first.markLost(); // its node dies: no release
      await expireLease(pool, gameId);

      const second = await open(host('B'), gameId);
      assert.deepEqual(second.drawOffer, before.offer);
      assert.equal(second.eventSeq, before.v);
      const accepted = (await second.execute({ type: 'answer_draw', userId: black, offerId: before.offer.id, accept: true })) as any;
      assert.equal(accepted.ok, true, JSON.stringify(accepted));
      assert.deepEqual([accepted.value.status, accepted.value.result, accepted.value.termination], ['finished', '1/2-1/2', 'agreement']);
      const row = await gameRow(pool, gameId);
      assert.deepEqual([row.status, row.result, row.winner, row.termination], ['finished', '1/2-1/2', null, 'agreement']);
      const { rows } = await pool.query('SELECT status FROM draw_offers WHERE id = $1', [before.offer.id]);
      assert.equal(rows[0].status, 'accepted');
    });
  });
});
