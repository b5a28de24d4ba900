import assert from 'node:assert/strict';
import { listGames } from '../../src/db/gameLists.ts';
import { findGame, findGameDetail } from '../../src/db/games.ts';
import { MoveWriter, MoveWriteTimeout, SNAPSHOT_EVERY, writeDeadlineMs, type MoveWrite } from '../../src/db/moveWriter.ts';
import { createPool, STATEMENT_TIMEOUT_MS, type Pool, type PoolClient } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { renewLeases } from '../../src/db/liveGames.ts';
import { GameActor } from '../../src/services/gameActor.ts';
import { LiveGameHost, RENEW_CHUNK } from '../../src/services/liveGameHost.ts';
import { ManualClock, settle } from '../helpers/clock.ts';
import { insertActiveGame, insertUser } from '../support/fixtures.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { hearLost, openLiveGame } from '../helpers/liveGames.ts';
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
  pgn: '1. e4',
  playedAt: new Date(),
  clockMs: 300_000,
  whiteMs: 300_000,
  blackMs: 300_000,
  clockRunning: false,
  firstMoveDeadline: null,
  roomState: { whiteQuotaMs: 3000, blackQuotaMs: 3000 },
  eventSeq: 1,
  moverId: players.white,
  lapsesOffer: false,
  ...o,
});

const e5 = (gameId: string): MoveWrite =>
  e4(gameId, { ply: 2, san: 'e5', uci: 'e7e5', pgn: '1. e4 e5', eventSeq: 2, moverId: players.black });

/** White's 2. Nf3 after 1. e4 e5, with the clocks running (White 299 s, Black 298 s). */
const nf3 = (gameId: string): MoveWrite =>
  e4(gameId, {
    ply: 3, san: 'Nf3', uci: 'g1f3', pgn: '1. e4 e5 2. Nf3', eventSeq: 3, clockRunning: true,
    fen: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2',
    clockMs: 299_000, whiteMs: 299_000, blackMs: 298_000, playedAt: new Date(Date.now() + 1000),
  });

/** Ply `ply` of knights going out and back (1. Nf3 Nf6 2. Ng1 Ng8 …): any number of plies. */
const knightDance = (gameId: string, ply: number): MoveWrite => {
  const white = ply % 2 === 1;
  const out = Math.floor((ply - 1) / 2) % 2 === 0;
  const uci = white ? (out ? 'g1f3' : 'f3g1') : out ? 'g8f6' : 'f6g8';
  return e4(gameId, {
    ply, uci, san: `N${uci.slice(2)}`, pgn: `ply ${ply}`, eventSeq: ply, clockRunning: ply >= 2,
    moverId: white ? players.white : players.black,
  });
};

/** The pool's writer for one test. */
const writer = () => new MoveWriter(db.pool);

/** The games row as stored (its snapshot), with its row version. */
const gameRow = async (gameId: string) =>
  (await db.pool.query('SELECT ctid::text, move_count, fen, pgn, event_seq, last_move_at FROM games WHERE id = $1', [gameId])).rows[0];

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

  it('isolates a bad append without writing again the snapshot moves of its batch, which landed', async () => {
    const [lean, bad, fresh] = await newGames(3);
    for (const id of [lean!, bad!]) {
      assert.equal(await writer().write(e4(id)), true);
      assert.equal(await writer().write(e5(id)), true);
    }
    const w = writer();
    // One batch: two appends (ply 3), one of them refused by PostgreSQL, and a snapshot move (ply 1).
    const results = await Promise.all([
      outcome(w.write(nf3(lean!))),
      outcome(w.write({ ...nf3(bad!), san: 'Nf3\u0000' })),
      outcome(w.write(e4(fresh!))),
    ]);
    assert.deepEqual([results[0], results[2]], [{ value: true }, { value: true }]);
    assert.equal((results[1] as { error: { code: string } }).error.code, '22021');
    assert.deepEqual([(await movesOf(lean!)).length, (await movesOf(bad!)).length, (await movesOf(fresh!)).length], [3, 2, 1]);
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
      const { rows } = await pool.query("SELECT name FROM pg_prepared_statements WHERE name = 'move-snapshot-3'");
      assert.equal(rows.length, 1);
    } finally {
      await pool.end();
    }
  });
  it('appends a move after the second ply to game_moves alone, and every read folds it into the game', async () => {
    const [id] = await newGames(1);
    assert.equal(await writer().write(e4(id!)), true);
    assert.equal(await writer().write(e5(id!)), true);
    const before = await gameRow(id!);
    const third = nf3(id!);
    assert.equal(await writer().write(third), true);
    // The games row is untouched: the same row version, the snapshot of ply 2.
    const after = await gameRow(id!);
    assert.deepEqual(after, before);
    assert.equal(after.move_count, 2);
    assert.deepEqual(await movesOf(id!), [{ ply: 1, san: 'e4' }, { ply: 2, san: 'e5' }, { ply: 3, san: 'Nf3' }]);
    const expected = { fen: third.fen, pgn: '1. e4 e5 2. Nf3', moveCount: 3, whiteTimeMs: 299_000, blackTimeMs: 298_000, eventSeq: 3 };
    const game = (await findGame(db.pool, id!))!;
    const detail = (await findGameDetail(db.pool, id!))!.game;
    const listed = (await listGames(db.pool, { viewerId: players.white, status: 'active' }, { field: 'updated_at', direction: 'desc' }, { limit: 100, offset: 0 }))
      .games.find((g) => g.id === id)!;
    for (const g of [game, detail, listed]) {
      assert.deepEqual(
        { fen: g.fen, pgn: g.pgn, moveCount: g.moveCount, whiteTimeMs: g.whiteTimeMs, blackTimeMs: g.blackTimeMs, eventSeq: g.eventSeq },
        expected,
      );
      assert.equal(g.turnStartedAt?.getTime(), third.playedAt.getTime());
      assert.ok(g.lastMoveAt! > before.last_move_at, 'the appended move is the last change');
    }
  });

  it('appends a few moves as one VALUES statement and many through arrays, each prepared once by its size', async () => {
    const pool = createPool((db.pool.options as { connectionString: string }).connectionString, 1);
    const w = new MoveWriter(pool);
    try {
      const games = await newGames(20);
      for (const move of [e4, e5]) assert.deepEqual(new Set(await Promise.all(games.map((id) => w.write(move(id))))), new Set([true]));
      assert.equal(await w.write(nf3(games[0]!)), true);
      assert.deepEqual(await Promise.all(games.slice(1).map((id) => w.write(nf3(id)))), games.slice(1).map(() => true));
      for (const id of games) assert.equal((await movesOf(id)).length, 3);
      const { rows } = await pool.query("SELECT name FROM pg_prepared_statements WHERE name LIKE 'move-lean-%' ORDER BY name");
      assert.deepEqual(rows.map((r) => r.name), ['move-lean-1', 'move-lean-n']);
    } finally {
      await pool.end();
    }
  });

  describe('the commit window', () => {
    const WINDOW_MS = 50;
    /** A writer whose window runs on a manual clock, and the size of each batch it sent. */
    const windowed = (o: { maxBatch?: number } = {}) => {
      const clock = new ManualClock();
      const w = new MoveWriter(db.pool, { clock, commitWindowMs: WINDOW_MS, ...o });
      const sizes: number[] = [];
      w.onBatch = (_ms, moves) => sizes.push(moves);
      return { clock, w, sizes };
    };
    /** Whether `p` has settled yet, read after the callbacks of this turn have run. */
    const tracked = <T>(p: Promise<T>) => {
      const t = { settled: false, promise: p };
      p.then(
        () => (t.settled = true),
        () => (t.settled = true),
      );
      return t;
    };

    it('sends the moves that arrive within the window after a batch in one batch, and acknowledges them only once it commits', async () => {
      const { clock, w, sizes } = windowed();
      const [a, b, c, d] = await newGames(4);
      // The first leaves at once: no batch went before it.
      assert.equal(await w.write(e4(a!)), true);
      // Three more, 10 ms apart, all within the window the first batch opened.
      const later = [];
      for (const id of [b!, c!, d!]) {
        later.push(tracked(w.write(e4(id))));
        await clock.advance(10);
      }
      // 30 ms after the first batch left: nothing sent, nothing acknowledged, nothing written.
      assert.equal(w.stats.batches, 1);
      assert.deepEqual(later.map((t) => t.settled), [false, false, false]);
      for (const id of [b!, c!, d!]) assert.deepEqual(await movesOf(id), []);
      await clock.advance(WINDOW_MS - 30);
      assert.deepEqual(await Promise.all(later.map((t) => t.promise)), [true, true, true]);
      assert.deepEqual(sizes, [1, 3]);
      assert.deepEqual({ batches: w.stats.batches, commits: w.stats.commits, moves: w.stats.moves }, { batches: 2, commits: 2, moves: 4 });
      for (const id of [b!, c!, d!]) assert.deepEqual(await movesOf(id), [{ ply: 1, san: 'e4' }]);
    });

    it('holds a batch no longer than the window the last batch opened', async () => {
      const { clock, w, sizes } = windowed();
      const [a, b] = await newGames(2);
      assert.equal(await w.write(e4(a!)), true);
      await clock.advance(30);
      const held = tracked(w.write(e4(b!)));
      await clock.advance(WINDOW_MS - 30 - 1);
      assert.equal(w.stats.batches, 1, 'held until the window closes');
      // It closes 50 ms after the first batch left: 20 ms after this move came, not 50.
      await clock.advance(1);
      assert.equal(w.stats.batches, 2);
      assert.equal(await held.promise, true);
      assert.deepEqual(sizes, [1, 1]);
    });

    it('holds a batch no longer than the window when the clock is set back', async () => {
      const { clock, w } = windowed();
      const [a, b] = await newGames(2);
      assert.equal(await w.write(e4(a!)), true);
      // The wall clock stepped back a minute: measured from the last batch, the window would last 60 s.
      clock.skip(-60_000);
      const held = tracked(w.write(e4(b!)));
      await clock.advance(WINDOW_MS - 1);
      assert.equal(w.stats.batches, 1);
      await clock.advance(1);
      assert.equal(w.stats.batches, 2);
      assert.equal(await held.promise, true);
    });

    it('sends a move that comes after a quiet spell at once', async () => {
      const { clock, w, sizes } = windowed();
      const [a, b] = await newGames(2);
      assert.equal(await w.write(e4(a!)), true);
      await clock.advance(WINDOW_MS);
      // The clock does not move from here: the write could not wait for it.
      assert.equal(await w.write(e4(b!)), true);
      assert.deepEqual(sizes, [1, 1]);
    });

    it('sends an urgent write at once, and the moves waiting in the window with it', async () => {
      const { w, sizes } = windowed();
      const [a, b, c, urgent] = await newGames(4);
      assert.equal(await w.write(e4(a!)), true);
      const waiting = [w.write(e4(b!)), w.write(e4(c!))];
      await settle();
      assert.equal(w.stats.batches, 1, 'the two wait in the window');
      const sent = w.write(e4(urgent!), { urgent: true });
      // At the end of this turn of the event loop, on a clock that has not moved.
      await settle();
      assert.equal(w.stats.batches, 2);
      assert.deepEqual(await Promise.all([...waiting, sent]), [true, true, true]);
      assert.deepEqual(sizes, [1, 3]);
    });

    it('sends an urgent write that comes while a batch is being written as soon as that batch commits', async () => {
      const { w, sizes } = windowed();
      const [a, urgent] = await newGames(2);
      const first = w.write(e4(a!));
      await settle();
      assert.equal(w.stats.batches, 1, 'the first batch is being written');
      // Behind it, the urgent write does not wait for the window that batch opened.
      assert.deepEqual(await Promise.all([first, w.write(e4(urgent!), { urgent: true })]), [true, true]);
      assert.deepEqual(sizes, [1, 1]);
    });

    it('sends a full batch at once', async () => {
      const { w, sizes } = windowed({ maxBatch: 2 });
      const [a, b, c] = await newGames(3);
      assert.equal(await w.write(e4(a!)), true);
      const first = w.write(e4(b!));
      await settle();
      assert.equal(w.stats.batches, 1, 'one move waits in the window');
      assert.deepEqual(await Promise.all([first, w.write(e4(c!))]), [true, true]);
      assert.deepEqual(sizes, [1, 2]);
    });
  });

  it('rewrites the snapshot every SNAPSHOT_EVERY plies and when a move lapses a draw offer', async () => {
    const [id] = await newGames(1);
    const w = writer();
    for (let ply = 1; ply <= SNAPSHOT_EVERY; ply++) {
      assert.equal(await w.write(knightDance(id!, ply)), true);
      const row = await gameRow(id!);
      assert.equal(row.move_count, ply <= 2 ? ply : ply === SNAPSHOT_EVERY ? ply : 2, `after ply ${ply}`);
    }
    await db.pool.query(`INSERT INTO draw_offers (game_id, offered_by, ply, status, expires_at) VALUES ($1, $2, $3, 'pending', now() + interval '1 minute')`, [
      id,
      players.black,
      SNAPSHOT_EVERY,
    ]);
    // White's next ply (SNAPSHOT_EVERY is even) answers Black's offer by moving.
    const next = SNAPSHOT_EVERY + 1;
    assert.equal(await w.write({ ...knightDance(id!, next), lapsesOffer: true }), true);
    assert.equal((await gameRow(id!)).move_count, next);
    const { rows } = await db.pool.query('SELECT status FROM draw_offers WHERE game_id = $1', [id]);
    assert.deepEqual(rows, [{ status: 'expired' }]);
  });

  it("fences an appended move by the room's epoch, also when a takeover holds the game's row", async () => {
    const [stale, takenOver] = await newGames(2);
    for (const id of [stale!, takenOver!]) {
      assert.equal(await writer().write(e4(id)), true);
      assert.equal(await writer().write(e5(id)), true);
    }
    await db.pool.query('UPDATE games SET host_epoch = host_epoch + 1 WHERE id = $1', [stale]);
    assert.equal(await writer().write(nf3(stale!)), false, 'a write at an old epoch lands nothing');
    // Another node takes the game over while the move is on its way: the move waits for the
    // takeover's row lock, then finds the new epoch and lands nothing.
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('UPDATE games SET host_epoch = host_epoch + 1 WHERE id = $1', [takenOver]);
      const pending = writer().write(nf3(takenOver!));
      await waitersOnLocks(1);
      await client.query('COMMIT');
      assert.equal(await pending, false);
    } finally {
      client.release();
    }
    for (const id of [stale!, takenOver!]) assert.deepEqual((await movesOf(id)).length, 2);
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

  it('never moves hosted_at back: a renewal round that finishes after a later one keeps the later instant', async () => {
    const [gameId] = await newGames(1);
    const later = new Date('2030-01-01T00:00:02Z');
    const earlier = new Date('2030-01-01T00:00:01Z');
    assert.equal((await renewLeases(db.pool, [{ gameId, epoch: 0 }], 15_000, later)).size, 1);
    assert.equal((await renewLeases(db.pool, [{ gameId, epoch: 0 }], 15_000, earlier)).size, 1);
    const { rows } = await db.pool.query('SELECT hosted_at FROM games WHERE id = $1', [gameId]);
    assert.equal(rows[0].hosted_at.toISOString(), later.toISOString());
  });

  it('renews leases a chunk at a time, so a move batch never waits for every game of the node', async () => {
    const { config } = await testService();
    const host = new LiveGameHost(db.pool, { ...config, gameLeaseMs: 15_000 }, createLogger('silent'), 'A');
    const rounds: { games: number }[] = [];
    host.onRenewal = (_ms, games) => rounds.push({ games });
    const ids = await newGames(RENEW_CHUNK * 2 + 5);
    const live: GameActor[] = [];
    const lost: string[] = [];
    try {
      for (const id of ids) {
        const game = await openLiveGame(host, id);
        hearLost(game, () => (lost.push(id), host.unregister(game)));
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
    const live = new Map<string, GameActor>();
    for (const id of [stuck!, idle!]) {
      const game = await openLiveGame(host, id);
      // As GameRoom does: a lost game's room goes, and leaves the host.
      hearLost(game, () => (lost.push(id), host.unregister(game)));
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

      // Registered only now: the host renews on its clock, and a round during the advances above
      // would have waited on the rows this test holds.
      for (const game of live.values()) host.register(game);
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
