import assert from 'node:assert/strict';
import { Chess } from 'chess.js';
import { LiveGame, type GameEvent } from '../../src/services/liveGame.ts';
import { expireLease } from '../helpers/fixtures.ts';
import { liveGameFixture, openLiveGame, uci } from '../helpers/liveGames.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import type { Pool } from '../../src/db/pool.ts';

let db: { pool: Pool; drop: () => Promise<void> };



const setup = (o: Parameters<typeof liveGameFixture>[1] = {}) => liveGameFixture(db.pool, o);
const open = openLiveGame;

describe('LiveGame (the game actor) against PostgreSQL', () => {
  before(async () => {
    db = await isolatedDatabase();
  });
  after(() => db.drop());

  it('makes a move durable before acknowledging it', async () => {
    const { pool, host, white, gameId } = await setup();
    const live = await open(host('A'), gameId);
    const reply = await live.move(white, uci('e2e4'));
    assert.equal(reply.ok, true);
    const { rows } = await pool.query('SELECT ply, san, uci FROM game_moves WHERE game_id = $1', [gameId]);
    assert.deepEqual(rows, [{ ply: 1, san: 'e4', uci: 'e2e4' }]);
    const g = await pool.query('SELECT move_count, fen, pgn FROM games WHERE id = $1', [gameId]);
    assert.equal(g.rows[0].move_count, 1);
    assert.equal(g.rows[0].pgn, '1. e4');
    await live.close(true);
  });

  it('accepts exactly one of 20 identical concurrent moves', async () => {
    const { pool, host, white, gameId } = await setup();
    const live = await open(host('A'), gameId);
    const replies = await Promise.all(Array.from({ length: 20 }, () => live.move(white, uci('e2e4'))));
    assert.equal(replies.filter((r) => r.ok).length, 1);
    for (const r of replies.filter((r) => !r.ok)) assert.equal((r as { code: string }).code, 'NOT_YOUR_TURN');
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM game_moves WHERE game_id = $1', [gameId]);
    assert.equal(rows[0].n, 1);
    await live.close(true);
  });

  it('refuses a second owner while the lease is held', async () => {
    const { host, gameId } = await setup();
    const first = await open(host('A'), gameId);
    assert.equal(await LiveGame.open(host('B'), gameId), 'lease_held');
    await first.close(true);
  });

  it('fences out the old owner once another node took the game', async () => {
    const { pool, host, white, black, gameId } = await setup();
    const old = await open(host('A'), gameId);
    let lost = false;
    old.onLost = () => (lost = true);
    assert.equal((await old.move(white, uci('e2e4'))).ok, true);
    await expireLease(pool, gameId);
    const taker = await open(host('B'), gameId);
    const stale = await old.move(black, uci('e7e5'));
    assert.deepEqual([stale.ok, (stale as { code: string }).code, lost], [false, 'SERVICE_UNAVAILABLE', true]);
    assert.equal((await taker.move(black, uci('e7e5'))).ok, true);
    const { rows } = await pool.query('SELECT san FROM game_moves WHERE game_id = $1 ORDER BY ply', [gameId]);
    assert.deepEqual(rows.map((r) => r.san), ['e4', 'e5']);
    await taker.close(true);
  });

  it('rehydrates board, moves, clocks and event number after its owner vanished', async () => {
    const { pool, host, white, black, gameId } = await setup({ initialTime: 60, increment: 2 });
    const first = await open(host('A'), gameId);
    for (const [who, m] of [[white, 'e2e4'], [black, 'e7e5'], [white, 'g1f3'], [black, 'b8c6']] as const) {
      assert.equal((await first.move(who, uci(m))).ok, true);
    }
    const before = { fen: first.game.fen, sans: [...first.game.sanList], v: first.eventSeq, clock: first.clock.snapshot() };
    first.markLost(); // dies abruptly: no release
    await expireLease(pool, gameId);
    const second = await open(host('B'), gameId);
    assert.equal(second.game.fen, before.fen);
    assert.deepEqual(second.game.sanList, before.sans);
    assert.equal(second.eventSeq, before.v);
    const after = second.clock.snapshot();
    assert.equal(after.whiteMs, before.clock.whiteMs);
    assert.equal(after.blackMs, before.clock.blackMs);
    assert.equal(second.clock.running, true);
    await second.close(true);
  });

  it('ends the game by checkmate in the transaction that writes the mating move', async () => {
    const { pool, host, white, black, gameId } = await setup();
    const live = await open(host('A'), gameId);
    const events: GameEvent[] = [];
    live.onEvent = (e) => events.push(e);
    for (const [who, m] of [[white, 'f2f3'], [black, 'e7e5'], [white, 'g2g4'], [black, 'd8h4']] as const) {
      assert.equal((await live.move(who, uci(m))).ok, true);
    }
    const { rows } = await pool.query('SELECT status, result, winner, termination, move_count FROM games WHERE id = $1', [gameId]);
    assert.deepEqual(rows[0], { status: 'finished', result: '0-1', winner: 'black', termination: 'checkmate', move_count: 4 });
    assert.deepEqual(events.slice(-2).map((e) => e.type), ['move', 'game_end']);
    const end = await live.move(white, uci('a2a3'));
    assert.equal((end as { code: string }).code, 'GAME_NOT_ACTIVE');
  });

  it('replays a seeded random game move by move like chess.js', async () => {
    const { host, white, black, gameId } = await setup();
    const live = await open(host('A'), gameId);
    const reference = new Chess();
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let ply = 0; ply < 40 && !reference.isGameOver(); ply++) {
      const options = reference.moves({ verbose: true });
      const pick = options[Math.floor(rand() * options.length)];
      const mover = reference.turn() === 'w' ? white : black;
      const reply = await live.move(mover, { from: pick.from, to: pick.to, promotion: pick.promotion });
      reference.move(pick);
      assert.equal(reply.ok, true);
      assert.equal(live.game.fen, reference.fen());
    }
    await live.close(true);
  });
});
