import assert from 'node:assert/strict';
import { MoveWriter, MoveWriteTimeout, writeDeadlineMs, type MoveWrite } from '../../src/db/moveWriter.ts';
import { createPool, STATEMENT_TIMEOUT_MS, type Pool, type PoolClient } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { renewLeases } from '../../src/db/liveGames.ts';
import { LiveGame } from '../../src/services/liveGame.ts';
import { LiveGameHost, RENEW_CHUNK } from '../../src/services/liveGameHost.ts';
import { ManualClock, settle } from '../helpers/clock.ts';
import { insertActiveGame, insertUser } from '../helpers/fixtures.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { openLiveGame } from '../helpers/liveGames.ts';
import { testService } from '../helpers/service.ts';

let db: { pool: Pool; drop: () => Promise<void> };
let players: { white: string; black: string };

/**
 * Active games with no move yet, never hosted (epoch 0), so a first move lands as it is; no
 * first-move deadline, so a hosted one arms no timer that a manual clock could fire.
 */
const newGames = (n: number) =>
  Promise.all(Array.from({ length: n }, () => insertActiveGame(db.pool, players.white, players.black, { firstMoveDeadline: null })));

/** White's 1. e4 in `gameId`, as a game's actor hands it to the writer. */
const e4 = (gameId: string, o: Partial<MoveWrite> = {}): MoveWrite => ({
  gameId,
  epoch: 0,
  ply: 1,
  san: 'e4',
  uci: 'e2e4',
  fen: 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1',
  pgnSuffix: '1. e4',
  clockMs: 300_000,
  whiteMs: 300_000,
  blackMs: 300_000,
  clockRunning: false,
  turnStartedAt: null,
  firstMoveDeadline: null,
  roomState: { whiteQuotaMs: 3000, blackQuotaMs: 3000 },
  eventSeq: 1,
  moverId: players.white,
  movedAt: new Date(),
  ...o,
});

const e5 = (gameId: string): MoveWrite =>
  e4(gameId, { ply: 2, san: 'e5', uci: 'e7e5', pgnSuffix: ' e5', eventSeq: 2, moverId: players.black });

const movesOf = async (gameId: string) =>
  (await db.pool.query('SELECT ply, san FROM game_moves WHERE game_id = $1 ORDER BY ply', [gameId])).rows;

/** How a promise settled, without letting a rejection go unhandled. */
const outcome = (p: Promise<unknown>) =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

/** Another session's open transaction holding the rows of `gameIds` FOR UPDATE, until released. */
async function lockGames(gameIds: string[]): Promise<{ release: () => Promise<void> }> {
  const client: PoolClient = await db.pool.connect();
  await client.query('BEGIN');
  await client.query('SELECT id FROM games WHERE id = ANY($1::uuid[]) FOR UPDATE', [gameIds]);
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      await client.query('ROLLBACK');
      client.release();
    },
  };
}

/** Resolves once `n` statements of this database wait for a row lock in PostgreSQL. */
async function waitersOnLocks(n: number): Promise<void> {
  for (;;) {
    const { rows } = await db.pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (rows[0].n >= n) return;
    await settle();
  }
}

/** A pool on the isolated database with its own statement timeout. */
const poolWith = (statementTimeoutMs: number) =>
  createPool((db.pool.options as { connectionString: string }).connectionString, 3, { statementTimeoutMs });

describe('MoveWriter (group commit) against PostgreSQL', () => {
  before(async () => {
    db = await isolatedDatabase();
    players = { white: await insertUser(db.pool), black: await insertUser(db.pool) };
  });
  after(() => db.drop());

  it('gives every pool connection a statement timeout', async () => {
    const { rows } = await db.pool.query('SHOW statement_timeout');
    assert.equal(rows[0].statement_timeout, `${STATEMENT_TIMEOUT_MS / 1000}s`);
  });

  it('writes the other games of a batch with a bad row and rejects only the bad one', async () => {
    const writer = new MoveWriter(db.pool);
    const games = await newGames(5);
    const bad = games[2]!;
    // PostgreSQL refuses a NUL character in text: the whole statement fails on this one value.
    const results = await Promise.all(games.map((id) => outcome(writer.write(e4(id, id === bad ? { san: 'e4\u0000' } : {})))));
    assert.equal(writer.stats.batches, 1, 'the five writes left together');
    for (const [i, id] of games.entries()) {
      if (id === bad) {
        assert.equal((results[i] as { error: { code: string } }).error.code, '22021');
        assert.deepEqual(await movesOf(id), []);
      } else {
        assert.deepEqual(results[i], { value: true });
        assert.deepEqual(await movesOf(id), [{ ply: 1, san: 'e4' }]);
      }
    }
    assert.deepEqual({ badRows: writer.stats.badRows, failedBatches: writer.stats.failedBatches }, { badRows: 1, failedBatches: 0 });
  });


  it('writes batch after batch through one prepared statement per connection, and times each batch', async () => {
    const pool = createPool((db.pool.options as { connectionString: string }).connectionString, 1);
    const writer = new MoveWriter(pool);
    const timed: { ms: number; moves: number }[] = [];
    writer.onBatch = (ms, moves) => timed.push({ ms, moves });
    try {
      const games = await newGames(3);
      assert.deepEqual(await Promise.all(games.map((id) => writer.write(e4(id)))), [true, true, true]);
      assert.deepEqual(await Promise.all(games.map((id) => writer.write(e5(id)))), [true, true, true]);
      for (const id of games) assert.deepEqual(await movesOf(id), [{ ply: 1, san: 'e4' }, { ply: 2, san: 'e5' }]);
      assert.deepEqual(timed.map((t) => t.moves), [3, 3]);
      for (const t of timed) assert.ok(t.ms > 0 && t.ms < 5000, `a batch took ${t.ms} ms`);
      // The pool's one connection: the batch statement was prepared there once, by name.
      const { rows } = await pool.query("SELECT name FROM pg_prepared_statements WHERE name = 'move-batch'");
      assert.equal(rows.length, 1);
    } finally {
      await pool.end();
    }
  });
  it("changes no indexed column of a live game: its moves and lease renewals are heap-only updates", async function () {
    this.timeout(30_000);
    // A database of its own, so that every update of `games` counted below is one of this test's.
    const own = await isolatedDatabase();
    const pool = createPool((own.pool.options as { connectionString: string }).connectionString, 1);
    try {
      const [white, black] = [await insertUser(own.pool), await insertUser(own.pool)];
      const games = await Promise.all(
        [1, 2, 3].map(() => insertActiveGame(own.pool, white, black, { firstMoveDeadline: null })),
      );
      // The updates are counted by the backend that made them (the pool's one connection) and
      // reach pg_stat_user_tables when it flushes them, which this forces.
      const counted = async () => {
        await pool.query('SELECT pg_stat_force_next_flush()');
        const { rows } = await pool.query("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'games'");
        return { updates: Number(rows[0].n_tup_upd), heapOnly: Number(rows[0].n_tup_hot_upd) };
      };
      const before = await counted();
      const writer = new MoveWriter(pool);
      for (const id of games) assert.equal(await writer.write({ ...e4(id), moverId: white }), true);
      for (const id of games) assert.equal(await writer.write({ ...e5(id), moverId: black }), true);
      assert.equal((await renewLeases(pool, games.map((gameId) => ({ gameId, epoch: 0 })), 15_000)).size, 3);
      const after = await counted();
      assert.deepEqual(
        { updates: after.updates - before.updates, heapOnly: after.heapOnly - before.heapOnly },
        { updates: 9, heapOnly: 9 },
      );
      // The read still shows the move as the game's last change.
      const { rows } = await pool.query('SELECT updated_at, last_move_at FROM games WHERE id = $1', [games[0]]);
      assert.ok(rows[0].last_move_at > rows[0].updated_at);
    } finally {
      await pool.end();
      await own.drop();
    }
  });

  it('fails a write blocked by a row lock at the statement timeout, then writes the next batch', async () => {
    const pool = poolWith(200);
    const writer = new MoveWriter(pool, { deadlineMs: 15_000 });
    const [blocked, free] = await newGames(2);
    const lock = await lockGames([blocked!]);
    try {
      const stuck = outcome(writer.write(e4(blocked!)));
      await waitersOnLocks(1);
      // Queued behind the blocked batch: it waits until that batch gives up, then goes alone.
      const next = writer.write(e4(free!));
      const failed = (await stuck) as { error: { code?: string } };
      assert.equal(failed.error.code, '57014', 'cancelled by PostgreSQL (statement_timeout)');
      assert.equal(await next, true);
      // All while the lock is still held: the node's other games were not stalled past the timeout.
      assert.deepEqual(await movesOf(free!), [{ ply: 1, san: 'e4' }]);
      assert.deepEqual(await movesOf(blocked!), []);
      const { batches, failedBatches, timeouts } = writer.stats;
      assert.deepEqual({ batches, failedBatches, timeouts }, { batches: 2, failedBatches: 1, timeouts: 1 });
    } finally {
      await lock.release();
      await pool.end();
    }
    assert.deepEqual(await movesOf(blocked!), [], 'the cancelled statement never lands');
  });

  it('gives up a batch the server never cancels at its deadline, and writes the next batch', async () => {
    const pool = poolWith(0); // no statement timeout: only the writer's deadline can end the wait
    const clock = new ManualClock();
    const writer = new MoveWriter(pool, { clock, deadlineMs: 1000 });
    const [blocked, free] = await newGames(2);
    const lock = await lockGames([blocked!]);
    try {
      const stuck = outcome(writer.write(e4(blocked!)));
      await waitersOnLocks(1);
      const next = writer.write(e4(free!));
      await clock.advance(999);
      assert.equal(writer.stats.timeouts, 0);
      await clock.advance(1);
      assert.ok(((await stuck) as { error: unknown }).error instanceof MoveWriteTimeout);
      assert.equal(await next, true);
      assert.deepEqual(await movesOf(free!), [{ ply: 1, san: 'e4' }]);
      assert.deepEqual({ failedBatches: writer.stats.failedBatches, timeouts: writer.stats.timeouts }, { failedBatches: 1, timeouts: 1 });
    } finally {
      await lock.release();
      await pool.end();
    }
  });

  it('writes a batch beside a lease renewal of the same games named in the other order, without a deadlock', async () => {
    // Both statements update many games rows. Were each to lock them in the order it names them,
    // a renewal holding the second game and waiting for the first, while a batch holds the first
    // and waits for the second, would deadlock (seen under arena load: the batch's games handed
    // back, their moves refused). Made to happen here: another session holds the first game, so
    // the batch waits for it before taking anything, and the renewal (named in reverse) can take
    // the second one meanwhile; then the first is let go.
    // On a big table both join the games by index, in the order of their arrays (a table of a
    // few rows would be read whole, in one order for both): give the planner a big one.
    await db.pool.query(
      `INSERT INTO games (kind, created_by, white_id, black_id, status, time_control, initial_time, increment, rated,
                          white_time_ms, black_time_ms, white_rating, black_rating, started_at, pgn)
       SELECT 'challenge', $1, $1, $2, 'active', 'blitz', 300, 0, true, 300000, 300000, 1500, 1500, now(), 'ballast'
         FROM generate_series(1, 5000)`,
      [players.white, players.black],
    );
    await db.pool.query('ANALYZE games');
    try {
      const [first, second] = (await newGames(2)).sort();
      const held = await lockGames([first!]);
      const writer = new MoveWriter(db.pool);
      const batch = outcome(Promise.all([writer.write(e4(first!)), writer.write(e4(second!))]));
      await waitersOnLocks(1);
      const renewal = outcome(renewLeases(db.pool, [second!, first!].map((gameId) => ({ gameId, epoch: 0 })), 15_000));
      await waitersOnLocks(2);
      await held.release();
      const [written, renewed] = await Promise.all([batch, renewal]);
      assert.deepEqual(written, { value: [true, true] }, JSON.stringify(written));
      assert.ok('value' in renewed, `renewal failed: ${String((renewed as { error: Error }).error?.message)}`);
      assert.deepEqual(renewed.value, new Set([first, second]));
      assert.deepEqual(await movesOf(first!), [{ ply: 1, san: 'e4' }]);
      assert.deepEqual(await movesOf(second!), [{ ply: 1, san: 'e4' }]);
    } finally {
      await db.pool.query(`DELETE FROM games WHERE pgn = 'ballast'`);
    }
  });

  it('refuses a second write for a game while its first is outstanding, so no batch holds two', async () => {
    const writer = new MoveWriter(db.pool);
    const [gameId] = await newGames(1);
    const first = writer.write(e4(gameId!));
    const second = outcome(writer.write(e5(gameId!)));
    assert.match(String(((await second) as { error: Error }).error.message), /previous one is outstanding/);
    assert.equal(await first, true);
    assert.deepEqual({ batches: writer.stats.batches, moves: writer.stats.moves }, { batches: 1, moves: 1 });
    // Once the first is durable the game's next write is welcome.
    assert.equal(await writer.write(e5(gameId!)), true);
    assert.deepEqual(await movesOf(gameId!), [{ ply: 1, san: 'e4' }, { ply: 2, san: 'e5' }]);
  });

  it('renews leases a chunk at a time, so a move batch never waits for every game of the node', async () => {
    const { config } = await testService();
    const host = new LiveGameHost(db.pool, { ...config, gameLeaseMs: 15_000 }, createLogger('silent'), 'A');
    const rounds: { games: number }[] = [];
    host.onRenewal = (_ms, games) => rounds.push({ games });
    const ids = await newGames(RENEW_CHUNK * 2 + 5);
    const live: LiveGame[] = [];
    const lost: string[] = [];
    try {
      for (const id of ids) {
        const game = await openLiveGame(host, id);
        game.onLost = () => (lost.push(id), host.unregister(game));
        host.register(game);
        live.push(game);
      }
      const leaseOf = async (id: string) =>
        ((await db.pool.query('SELECT lease_expires_at FROM games WHERE id = $1', [id])).rows[0].lease_expires_at as Date).getTime();
      const [first, last] = [ids[0]!, ids.at(-1)!];
      const before = { first: await leaseOf(first), last: await leaseOf(last) };
      // Another node takes a game of the last chunk (a higher epoch): it is told, the rest renewed.
      const taken = ids.at(-2)!;
      await db.pool.query('UPDATE games SET host_epoch = host_epoch + 1 WHERE id = $1', [taken]);
      // The last game's row is locked elsewhere: the renewal waits there, with the first chunks committed.
      const lock = await lockGames([last]);
      const renewal = host.renewAll();
      try {
        await waitersOnLocks(1);
        assert.ok((await leaseOf(first)) > before.first, 'the first chunk committed while a later one waits');
      } finally {
        await lock.release();
      }
      await renewal;
      assert.ok((await leaseOf(last)) > before.last, 'the last chunk renewed once the lock went');
      assert.deepEqual(lost, [taken]);
      assert.deepEqual(rounds, [{ games: ids.length }]);
    } finally {
      host.close();
      for (const game of live) await game.close(false);
    }
  });

  it('stops renewing the lease of a game whose write is stuck past the deadline, and tells it', async () => {
    const { config } = await testService();
    const clock = new ManualClock();
    const host = new LiveGameHost(db.pool, { ...config, gameLeaseMs: 15_000 }, createLogger('silent'), 'A', clock);
    const deadline = writeDeadlineMs(15_000);
    const [first, stuck, idle] = await newGames(3);
    const lost: string[] = [];
    const live = new Map<string, LiveGame>();
    for (const id of [stuck!, idle!]) {
      const game = await openLiveGame(host, id);
      // As GameRoom does: a lost game's room goes, and leaves the host.
      game.onLost = () => (lost.push(id), host.unregister(game));
      host.register(game);
      live.set(id, game);
    }
    const leaseOf = async (id: string) =>
      ((await db.pool.query('SELECT lease_expires_at FROM games WHERE id = $1', [id])).rows[0].lease_expires_at as Date).getTime();
    const before = { stuck: await leaseOf(stuck!), idle: await leaseOf(idle!) };
    const lock = await lockGames([first!, stuck!]);
    try {
      // A batch hangs on a lock; the stuck game's move waits behind it, then hangs on its own.
      const hung = outcome(host.writer.write(e4(first!)));
      await waitersOnLocks(1);
      await clock.advance(deadline / 2);
      const waiting = outcome(host.writer.write(e4(stuck!, { epoch: live.get(stuck!)!.epoch })));
      await clock.advance(deadline / 2);
      assert.ok(((await hung) as { error: unknown }).error instanceof MoveWriteTimeout);
      assert.deepEqual([...host.writer.overdue()], [], 'outstanding for half the deadline only');
      await clock.advance(deadline / 2 + 1);
      assert.deepEqual([...host.writer.overdue()], [stuck]);

      await host.renewAll();
      assert.deepEqual(lost, [stuck]);
      assert.equal(await leaseOf(stuck!), before.stuck, 'not renewed');
      assert.ok((await leaseOf(idle!)) > before.idle, 'renewed');
      await lock.release();
      assert.deepEqual(await waiting, { value: true }, 'its write lands once the lock goes: the lease never lapsed');
    } finally {
      await lock.release();
      host.close();
      for (const game of live.values()) await game.close(false);
    }
  });
});
