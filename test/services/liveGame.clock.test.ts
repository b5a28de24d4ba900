import assert from 'node:assert/strict';
import { Chess } from 'chess.js';
import type { Config } from '../../src/config.ts';
import type { Pool } from '../../src/db/pool.ts';
import { LiveGame, type GameEvent } from '../../src/services/liveGame.ts';
import { LiveGameHost } from '../../src/services/liveGameHost.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { expireLease } from '../helpers/fixtures.ts';
import { liveGameFixture, openLiveGame, uci } from '../helpers/liveGames.ts';

let db: { pool: Pool; drop: () => Promise<void> };
const opened: LiveGame[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A live game actor against its own database; `config` overrides the service's settings. */
const setup = (o: Parameters<typeof liveGameFixture>[1] = {}, config: Partial<Config> = {}) => liveGameFixture(db.pool, o, config);


async function open(host: LiveGameHost, gameId: string): Promise<LiveGame> {
  const live = await openLiveGame(host, gameId);
  opened.push(live);
  return live;
}

type Event = GameEvent & { v: number; ts: number };

/** Resolves with the game's next event of `type`. */
function nextEvent<T extends Event['type']>(live: LiveGame, type: T, timeoutMs = 5000): Promise<Extract<Event, { type: T }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} event within ${timeoutMs} ms`)), timeoutMs);
    const previous = live.onEvent;
    live.onEvent = (event) => {
      previous(event);
      if (event.type !== type) return;
      clearTimeout(timer);
      live.onEvent = previous;
      resolve(event as Extract<Event, { type: T }>);
    };
  });
}

/** Plays UCI moves alternately, White first; every one must be accepted. */
async function playLine(live: LiveGame, players: { white: string; black: string }, moves: string[]) {
  let reply: any;
  for (const [i, m] of moves.entries()) {
    reply = await live.move(i % 2 === 0 ? players.white : players.black, uci(m));
    assert.equal(reply.ok, true, `${m}: ${JSON.stringify(reply)}`);
  }
  return reply.data;
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

describe('LiveGame against PostgreSQL: clocks and rehydration', () => {
  before(async () => {
    db = await isolatedDatabase();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((live) => live.close(true)));
  });
  after(() => db.drop());

  describe('clocks', () => {
    it("charges no time and gives no increment before Black's first move", async () => {
      const { pool, host, white, black, gameId } = await setup({ initialTime: 1, increment: 3 });
      const live = await open(host('A'), gameId);
      await sleep(150);
      const first = (await live.move(white, uci('e2e4'))) as any;
      assert.deepEqual([first.data.game.white_time_remaining, first.data.game.black_time_remaining], [1, 1]);
      assert.equal(live.clock.flagAt(), null);
      await sleep(150);
      const second = (await live.move(black, uci('e7e5'))) as any;
      assert.deepEqual([second.data.game.white_time_remaining, second.data.game.black_time_remaining], [1, 1]);
      const { rows } = await pool.query('SELECT ply, clock_ms FROM game_moves WHERE game_id = $1 ORDER BY ply', [gameId]);
      assert.deepEqual(rows, [{ ply: 1, clock_ms: 1000 }, { ply: 2, clock_ms: 1000 }]);
    });

    it("runs White's clock from Black's first move on", async () => {
      const { pool, host, white, black, gameId } = await setup({ initialTime: 1, increment: 0 });
      const live = await open(host('A'), gameId);
      await playLine(live, { white, black }, ['e2e4', 'e7e5']);
      const started = Date.now();
      assert.ok(live.clock.running);
      const row = await gameRow(pool, gameId);
      assert.equal(row.clock_running, true);
      assert.ok(row.turn_started_at instanceof Date);
      await sleep(200);
      const { white: left } = live.times();
      const ran = (Date.now() - started) / 1000;
      assert.ok(left <= 1 - 0.2 + 0.01 && left >= 1 - ran - 0.05, `white has ${left} s after ${ran} s`);
      assert.equal(live.times().black, 1);
    });

    it('ends the game by timeout within 100 ms of the flag, the opponent winning', async () => {
      const { pool, host, white, black, gameId } = await setup({ initialTime: 1, increment: 0 });
      const live = await open(host('A'), gameId);
      await playLine(live, { white, black }, ['e2e4', 'e7e5']);
      const flagAt = live.clock.flagAt()!;
      const end = await nextEvent(live, 'game_end');
      const late = end.ts - flagAt;
      assert.ok(late >= 0 && late <= 100, `game_end ${late} ms after the flag`);
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
      const { pool, host, white, black, gameId } = await setup({ initialTime: 1, increment: 0 });
      const live = await open(host('A'), gameId);
      await playLine(live, { white, black }, BARE_KING_LINE);
      const reference = new Chess();
      for (const m of BARE_KING_LINE) reference.move(uci(m));
      assert.equal(live.game.fen, reference.fen());
      assert.equal(live.game.turn, 'white');
      const end = await nextEvent(live, 'game_end');
      assert.deepEqual([end.result.result, end.result.winner, end.result.termination], ['1/2-1/2', null, 'timeout']);
      const row = await gameRow(pool, gameId);
      assert.deepEqual([row.status, row.result, row.winner, row.termination, row.white_time_ms], ['finished', '1/2-1/2', null, 'timeout', 0]);
    });

    it('refuses a move that arrives after the flag, before the flag timer fired, and ends the game by timeout', async () => {
      const { pool, host, white, black, gameId } = await setup({ initialTime: 1, increment: 0 });
      const live = await open(host('A'), gameId);
      await playLine(live, { white, black }, ['e2e4', 'e7e5']);
      const ended = nextEvent(live, 'game_end');
      const flagAt = live.clock.flagAt()!;
      await sleep(flagAt - Date.now() - 30);
      // Spin past the flag: the flag timer cannot fire while this runs, and the move below is
      // queued (a microtask) before the timer gets its turn.
      while (Date.now() <= flagAt) {}
      const reply = (await live.move(white, uci('g1f3'))) as { ok: false; code: string; message: string };
      assert.equal(reply.ok, false);
      assert.equal(reply.code, 'GAME_NOT_ACTIVE');
      assert.match(reply.message, /time/, 'the move itself discovered the flag');
      const end = await ended;
      assert.deepEqual([end.result.result, end.result.winner, end.result.termination], ['0-1', 'black', 'timeout']);
      const row = await gameRow(pool, gameId);
      assert.deepEqual([row.status, row.termination, row.move_count, row.white_time_ms], ['finished', 'timeout', 2, 0]);
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM game_moves WHERE game_id = $1', [gameId]);
      assert.equal(rows[0].n, 2);
    });

    it('adds the increment to the mover after each timed move', async () => {
      const { pool, host, white, black, gameId } = await setup({ initialTime: 60, increment: 2 });
      const live = await open(host('A'), gameId);
      await playLine(live, { white, black }, ['e2e4', 'e7e5']);
      const turnStart = Date.now();
      await sleep(100);
      const third = (await live.move(white, uci('g1f3'))) as any;
      const used = Date.now() - turnStart;
      const whiteLeft = third.data.game.white_time_remaining;
      assert.ok(whiteLeft >= 62 - used / 1000 - 0.01 && whiteLeft <= 62 - 0.099, `white has ${whiteLeft} s after ${used} ms`);
      const fourth = (await live.move(black, uci('b8c6'))) as any;
      const blackLeft = fourth.data.game.black_time_remaining;
      assert.ok(blackLeft > 61.9 && blackLeft <= 62, `black has ${blackLeft} s`);
      const { rows } = await pool.query('SELECT clock_ms FROM game_moves WHERE game_id = $1 ORDER BY ply', [gameId]);
      assert.deepEqual(rows.map((r) => r.clock_ms), [60_000, 60_000, Math.round(whiteLeft * 1000), Math.round(blackLeft * 1000)]);
    });

    it('aborts the game when White does not move in time: abandoned, no_first_move, unrated', async () => {
      const { pool, host, white, black, gameId } = await setup({ initialTime: 60, rated: true, firstMoveDeadline: new Date(Date.now() + 300) });
      const live = await open(host('A'), gameId);
      const end = await nextEvent(live, 'game_end');
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
      const { pool, host, white, gameId } = await setup({ initialTime: 60 }, { firstMoveMs: 300 });
      const live = await open(host('A'), gameId);
      const ended = nextEvent(live, 'game_end');
      assert.equal((await live.move(white, uci('e2e4'))).ok, true);
      const end = await ended;
      assert.deepEqual([end.status, end.abort_reason], ['abandoned', 'no_first_move']);
      const row = await gameRow(pool, gameId);
      assert.deepEqual([row.status, row.abort_reason, row.move_count, row.white_rating_change], ['abandoned', 'no_first_move', 1, 0]);
    });
  });

  describe('rehydration of a pending draw offer', () => {
    it('keeps the offer and the event number, and the recipient can accept it on the new host', async () => {
      const { pool, host, white, black, gameId } = await setup({ initialTime: 60 });
      const first = await open(host('A'), gameId);
      await playLine(first, { white, black }, ['e2e4', 'e7e5']);
      const offered = await first.offerDraw(white);
      assert.equal(offered.ok, true);
      const before = { offer: { ...first.drawOffer! }, v: first.eventSeq };
      first.markLost(); // its node dies: no release
      await expireLease(pool, gameId);

      const second = await open(host('B'), gameId);
      assert.deepEqual(second.drawOffer, before.offer);
      assert.equal(second.eventSeq, before.v);
      const accepted = (await second.answerDraw(black, before.offer.id, true)) as any;
      assert.equal(accepted.ok, true, JSON.stringify(accepted));
      assert.deepEqual([accepted.data.status, accepted.data.result, accepted.data.termination], ['finished', '1/2-1/2', 'agreement']);
      const row = await gameRow(pool, gameId);
      assert.deepEqual([row.status, row.result, row.winner, row.termination], ['finished', '1/2-1/2', null, 'agreement']);
      const { rows } = await pool.query('SELECT status FROM draw_offers WHERE id = $1', [before.offer.id]);
      assert.equal(rows[0].status, 'accepted');
    });
  });
});
