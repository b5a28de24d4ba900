import assert from 'node:assert/strict';
import { Chess } from 'chess.js';
import { GameActor, REMEMBERED_COMMANDS, type GameEvent } from '../../src/services/gameActor.ts';
import { expireLease } from '../support/fixtures.ts';
import { failureCode, hearEvents, hearLost, liveGameFixture, moveBy, openLiveGame } from '../helpers/liveGames.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import type { Pool } from '../../src/db/pool.ts';

let db: { pool: Pool; drop: () => Promise<void> };



const setup = (o: Parameters<typeof liveGameFixture>[1] = {}) => liveGameFixture(db.pool, o);
const open = openLiveGame;

describe('GameActor (the game actor) against PostgreSQL', () => {
  before(async () => {
    db = await isolatedDatabase();
  });
  after(() => db.drop());

  it('makes a move durable before acknowledging it', async () => {
    const { pool, host, white, gameId } = await setup();
    const live = await open(host('A'), gameId);
    const reply = await live.execute(moveBy(white, 'e2e4'));
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
    const replies = await Promise.all(Array.from({ length: 20 }, () => live.execute(moveBy(white, 'e2e4'))));
    assert.equal(replies.filter((r) => r.ok).length, 1);
    for (const r of replies.filter((r) => !r.ok)) assert.equal(failureCode(r), 'NOT_YOUR_TURN');
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM game_moves WHERE game_id = $1', [gameId]);
    assert.equal(rows[0].n, 1);
    await live.close(true);
  });

  it('refuses a second owner while the lease is held', async () => {
    const { host, gameId } = await setup();
    const first = await open(host('A'), gameId);
    assert.equal(await GameActor.open(host('B'), gameId), 'lease_held');
    await first.close(true);
  });

  it('fences out the old owner once another node took the game', async () => {
    const { pool, host, white, black, gameId } = await setup();
    const old = await open(host('A'), gameId);
    let lost = false;
    hearLost(old, () => (lost = true));
    assert.equal((await old.execute(moveBy(white, 'e2e4'))).ok, true);
    await expireLease(pool, gameId);
    const taker = await open(host('B'), gameId);
    const stale = await old.execute(moveBy(black, 'e7e5'));
    assert.deepEqual([stale.ok, failureCode(stale), lost], [false, 'SERVICE_UNAVAILABLE', true]);
    assert.equal((await taker.execute(moveBy(black, 'e7e5'))).ok, true);
    const { rows } = await pool.query('SELECT san FROM game_moves WHERE game_id = $1 ORDER BY ply', [gameId]);
    assert.deepEqual(rows.map((r) => r.san), ['e4', 'e5']);
    await taker.close(true);
  });

  it('rehydrates board, moves, clocks and event number after its owner vanished', async () => {
    const { pool, host, white, black, gameId } = await setup({ initialTime: 60, increment: 2 });
    const first = await open(host('A'), gameId);
    for (const [who, m] of [[white, 'e2e4'], [black, 'e7e5'], [white, 'g1f3'], [black, 'b8c6']] as const) {
      assert.equal((await first.execute(moveBy(who, m))).ok, true);
    }
    const before = { fen: first.game.fen, sans: [...first.game.sanList], v: first.eventSeq, chessClock: first.chessClock.snapshot() };
    first.markLost(); // dies abruptly: no release
    await expireLease(pool, gameId);
    const second = await open(host('B'), gameId);
    assert.equal(second.game.fen, before.fen);
    assert.deepEqual(second.game.sanList, before.sans);
    assert.equal(second.eventSeq, before.v);
    const after = second.chessClock.snapshot();
    assert.equal(after.whiteMs, before.chessClock.whiteMs);
    assert.equal(after.blackMs, before.chessClock.blackMs);
    assert.equal(second.chessClock.running, true);
    await second.close(true);
  });

  it('ends the game by checkmate in the transaction that writes the mating move', async () => {
    const { pool, host, white, black, gameId } = await setup();
    const live = await open(host('A'), gameId);
    const events: GameEvent[] = [];
    hearEvents(live, (e) => events.push(e));
    for (const [who, m] of [[white, 'f2f3'], [black, 'e7e5'], [white, 'g2g4'], [black, 'd8h4']] as const) {
      assert.equal((await live.execute(moveBy(who, m))).ok, true);
    }
    const { rows } = await pool.query('SELECT status, result, winner, termination, move_count FROM games WHERE id = $1', [gameId]);
    assert.deepEqual(rows[0], { status: 'finished', result: '0-1', winner: 'black', termination: 'checkmate', move_count: 4 });
    assert.deepEqual(events.slice(-2).map((e) => e.type), ['move', 'game_end']);
    const end = await live.execute(moveBy(white, 'a2a3'));
    assert.equal(failureCode(end), 'GAME_NOT_ACTIVE');
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
      const reply = await live.execute({ type: 'move', userId: mover, from: pick.from, to: pick.to, promotion: pick.promotion });
      reference.move(pick);
      assert.equal(reply.ok, true);
      assert.equal(live.game.fen, reference.fen());
    }
    await live.close(true);
  });

  describe('retried commands (a key answered once is answered again, never acted on twice)', () => {
    it('answers a retried move with the first answer and plays it once', async () => {
      const { pool, host, white, gameId } = await setup();
      const live = await open(host('A'), gameId);
      const first = await live.execute(moveBy(white, 'e2e4'), 'rest:k1');
      const retry = await live.execute(moveBy(white, 'e2e4'), 'rest:k1');
      assert.equal(first.ok, true);
      assert.deepEqual(retry, first);
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM game_moves WHERE game_id = $1', [gameId]);
      assert.equal(rows[0].n, 1);
      await live.close(true);
    });

    it(`remembers the last ${REMEMBERED_COMMANDS} answered keys, not every key of a long game`, async () => {
      const { host, white, gameId } = await setup();
      const live = await open(host('A'), gameId);
      for (let i = 1; i <= REMEMBERED_COMMANDS + 1; i++) assert.equal(failureCode(await live.execute(moveBy(white, 'e2e5'), `k${i}`)), 'INVALID_MOVE');
      // k2… are remembered: the same key for another command is refused.
      assert.equal(failureCode(await live.execute(moveBy(white, 'e2e4'), 'k2')), 'IDEMPOTENCY_KEY_REUSED');
      // k1, the oldest, was forgotten: it names a new command.
      assert.equal((await live.execute(moveBy(white, 'e2e4'), 'k1')).ok, true);
      await live.close(true);
    });

    it('answers a retry that arrives while the first is still being written with the same answer', async () => {
      const { pool, host, white, gameId } = await setup();
      const live = await open(host('A'), gameId);
      const replies = await Promise.all([1, 2, 3].map(() => live.execute(moveBy(white, 'e2e4'), 'gateway:r1')));
      assert.ok(replies.every((r) => r.ok));
      assert.deepEqual(replies[1], replies[0]);
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM game_moves WHERE game_id = $1', [gameId]);
      assert.equal(rows[0].n, 1);
      await live.close(true);
    });

    it('refuses the same key for another command, and changes nothing', async () => {
      const { host, white, gameId } = await setup();
      const live = await open(host('A'), gameId);
      await live.execute(moveBy(white, 'e2e4'), 'socket:s1:7');
      const other = await live.execute({ type: 'resign', userId: white }, 'socket:s1:7');
      assert.deepEqual([other.ok, failureCode(other)], [false, 'IDEMPOTENCY_KEY_REUSED']);
      assert.equal(live.status, 'active');
      await live.close(true);
    });

    it('replays a refusal too: a retried illegal move is refused the same way', async () => {
      const { host, white, gameId } = await setup();
      const live = await open(host('A'), gameId);
      const first = await live.execute(moveBy(white, 'e2e5'), 'rest:bad');
      assert.deepEqual(await live.execute(moveBy(white, 'e2e5'), 'rest:bad'), first);
      assert.equal(failureCode(first), 'INVALID_MOVE');
      await live.close(true);
    });

    it('recognises a move retried on the node that took the game over after its first node died', async () => {
      const { pool, host, white, black, gameId } = await setup();
      const first = await open(host('A'), gameId);
      assert.equal((await first.execute(moveBy(white, 'e2e4'), 'request:r1')).ok, true);
      const answered = (await first.execute(moveBy(black, 'e7e5'), 'rest:black:k')) as any;
      first.markLost(); // dies before the answer reached the client, which retries elsewhere
      await expireLease(pool, gameId);
      const second = await open(host('B'), gameId);
      const retry = (await second.execute(moveBy(black, 'e7e5'), 'rest:black:k')) as any;
      assert.equal(retry.ok, true, JSON.stringify(retry));
      assert.deepEqual(retry.value.move, answered.value.move);
      assert.equal(retry.value.game.move_count, 2);
      const other = await second.execute({ type: 'resign', userId: black }, 'rest:black:k');
      assert.equal(failureCode(other), 'IDEMPOTENCY_KEY_REUSED');
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM game_moves WHERE game_id = $1', [gameId]);
      assert.equal(rows[0].n, 2);
      await second.close(true);
    });

    it('acts on a new key for the same move as a new command', async () => {
      const { host, white, gameId } = await setup();
      const live = await open(host('A'), gameId);
      assert.equal((await live.execute(moveBy(white, 'e2e4'), 'a')).ok, true);
      assert.equal(failureCode(await live.execute(moveBy(white, 'e2e4'), 'b')), 'NOT_YOUR_TURN');
      await live.close(true);
    });
  });
});
