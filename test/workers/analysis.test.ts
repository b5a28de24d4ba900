import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { findAnalysis } from '../../src/db/analysis.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import type { GameAnalysis } from '../../src/domain/gameAnalysis.ts';
import { loadOpeningBook } from '../../src/domain/openings.ts';
import { createLogger } from '../../src/logger.ts';
import { systemClock, type Clock } from '../../src/time.ts';
import { startAnalysisWorkers, type AnalysisWorkerDeps, type AnalysisWorkers } from '../../src/workers/analysis.ts';
import { engineCommand } from '../../src/workers/engine.ts';
import { ManualClock } from '../helpers/clock.ts';
import { createDatabase } from '../support/database.ts';
import { insertFinishedGame, insertUser } from '../support/fixtures.ts';
import { until } from '../helpers/poll.ts';
import { testService } from '../helpers/service.ts';
import { assertIdlePriority } from '../helpers/scheduling.ts';

const SCHOLARS_MATE = ['e2e4', 'e7e5', 'f1c4', 'b8c6', 'd1h5', 'g8f6', 'h5f7'];
/** 20 plies of the Italian game, ending in no mate (White resigns). */
const ITALIAN = ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'f8c5', 'c2c3', 'g8f6', 'd2d3', 'd7d6', 'e1g1', 'e8g8', 'a2a4', 'a7a5', 'f1e1', 'h7h6', 'b1d2', 'c8e6', 'c4e6', 'f7e6'];
const DEPTH = 10;
/** For the tests that interrupt a job: each position takes long enough to be caught mid-game. */
const SLOW_DEPTH = 13;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const zombie = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? false;
  } catch {
    return true; // gone
  }
};


/**
 * The analysis workers against a database of their own (the suite's shared service queues its
 * games elsewhere) and a real Stockfish: the npm package's WASM build in a child process.
 */
describe('analysis workers', function () {
  this.timeout(60_000);
  let pool: Pool;
  let drop: () => Promise<void>;
  const running: AnalysisWorkers[] = [];

  before(async () => {
    const { db } = await testService();
    const created = await createDatabase(db.serverUrl);
    drop = created.drop;
    pool = createPool(created.url, 5);
    await migrate(pool);
    loadOpeningBook(); // once, before any timing
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((w) => w.stop()));
    // Each test starts from an empty queue.
    await pool.query(`UPDATE game_analyses SET status = 'done' WHERE status <> 'done'`);
  });
  after(async () => {
    await pool.end();
    await drop();
  });

  function start(o: Partial<AnalysisWorkerDeps> = {}, clock: Clock = systemClock): AnalysisWorkers {
    const workers = startAnalysisWorkers({
      pool,
      log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
      clock,
      command: engineCommand(),
      workers: 1,
      depth: DEPTH,
      node: 'test-node',
      lockMs: 20_000,
      pollMs: 50,
      openings: loadOpeningBook,
      ...o,
    });
    running.push(workers);
    return workers;
  }

  const done = (gameId: string) =>
    until(`the analysis of ${gameId}`, async () => {
      const row = await findAnalysis(pool, gameId);
      return row?.status === 'done' ? row : undefined;
    });

  it("analyses Scholar's mate: 3...Nf6?? is a blunder, the mate is seen as mate, and the opening is named", async () => {
    const gameId = await insertFinishedGame(pool, SCHOLARS_MATE);
    start();
    const row = await done(gameId);
    const a = row.result as GameAnalysis;
    assert.equal(a.game_id, gameId);
    assert.equal(a.depth, DEPTH);
    assert.match(a.engine, /^Stockfish 19/);
    assert.equal(a.moves.length, 4);
    const nf6 = a.moves[2].black!;
    assert.equal(nf6.san, 'Nf6');
    assert.equal(nf6.classification, 'blunder');
    assert.deepEqual([nf6.evaluation, nf6.mate], [100, 1], 'after 3...Nf6 White mates in one');
    assert.notEqual(nf6.best_move, 'Nf6');
    const qxf7 = a.moves[3].white!;
    assert.equal(qxf7.san, 'Qxf7#');
    assert.deepEqual([qxf7.evaluation, qxf7.mate, qxf7.best_move, qxf7.classification], [100, 0, 'Qxf7#', 'best']);
    assert.equal(a.moves[3].black, null);
    assert.deepEqual(a.blunders, { white: 0, black: 1 });
    assert.ok(a.accuracy.white! > a.accuracy.black!, `White (${a.accuracy.white}) played better than Black (${a.accuracy.black})`);
    assert.ok(a.opening, 'the opening is named');
    assert.match(a.opening.eco, /^[A-E]\d\d$/);
    assert.equal(row.progressDone, row.progressTotal);
    assert.equal(row.progressTotal, SCHOLARS_MATE.length + 1);
  });

  it('stores its progress position by position, and the progress only grows', async () => {
    const gameId = await insertFinishedGame(pool, ITALIAN);
    start();
    const seen: number[] = [];
    await until('the analysis to finish', async () => {
      const row = await findAnalysis(pool, gameId);
      seen.push(row!.progressDone);
      return row!.status === 'done';
    });
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b), `progress never goes back: ${seen.join(',')}`);
    assert.ok(seen.some((n) => n > 0 && n < ITALIAN.length + 1), `progress was seen between the ends: ${seen.join(',')}`);
    assert.equal(seen.at(-1), ITALIAN.length + 1);
  });

  it('replaces an engine that dies mid-job and retries the job from where it stopped', async () => {
    const gameId = await insertFinishedGame(pool, ITALIAN);
    const workers = start({ depth: SLOW_DEPTH });
    await until('some progress', async () => ((await findAnalysis(pool, gameId))!.progressDone > 2 ? true : undefined));
    const [pid] = workers.enginePids();
    // People's moves come first: the engine runs on CPU nothing else wants.
    assertIdlePriority(pid);
    process.kill(pid, 'SIGKILL');
    const row = await done(gameId);
    assert.equal(row.attempts, 2, 'claimed again after the engine died');
    assert.notDeepEqual(workers.enginePids(), [pid], 'a new engine took over');
    assert.ok(!alive(pid));
    const a = row.result as GameAnalysis;
    assert.equal(a.moves.length, ITALIAN.length / 2);
    assert.ok(a.moves.every((m) => m.white && m.black), 'every move analysed');
    // Positions found before the death were kept, not searched again.
    assert.ok(workers.searched < 2 * ITALIAN.length, `searched ${workers.searched} positions`);
  });

  it('kills and replaces an engine that stops answering (no bestmove in time), then finishes the job', async () => {
    const clock = new ManualClock(Date.now());
    const gameId = await insertFinishedGame(pool, ITALIAN, clock.now());
    const lockMs = 10_000; // searches longer than 5 s count as hung
    const workers = start({ lockMs, depth: SLOW_DEPTH }, clock);
    workers.kick();
    await until('some progress', async () => ((await findAnalysis(pool, gameId))!.progressDone > 2 ? true : undefined));
    const [pid] = workers.enginePids();
    process.kill(pid, 'SIGSTOP');
    // The worker's search may start after an advance: move time on until the engine is killed,
    // and no further (the next engine's start is timed on this clock too).
    const gone = () => !workers.enginePids().includes(pid);
    for (let tries = 0; !gone(); tries++) {
      assert.ok(tries < 20, 'the stopped engine was never found hung');
      await clock.advance(lockMs / 2);
      const deadline = Date.now() + 300;
      while (!gone() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    }
    await until('the stopped engine to be killed', () => !alive(pid) || zombie(pid), { ms: 2_000 });
    workers.kick();
    const row = await done(gameId);
    assert.equal(row.attempts, 2);
    assert.ok(workers.enginePids().length === 1 && workers.enginePids()[0] !== pid);
  });

  it('never analyses one game twice with two nodes taking jobs from one queue', async () => {
    const games = await Promise.all(
      Array.from({ length: 6 }, (_, i) => insertFinishedGame(pool, i % 2 ? SCHOLARS_MATE.slice(0, 6) : ITALIAN.slice(0, 8 + i))),
    );
    const a = start({ node: 'node-a' });
    const b = start({ node: 'node-b' });
    for (const g of games) await done(g);
    const { rows } = await pool.query('SELECT game_id, attempts, locked_by, progress_total FROM game_analyses WHERE game_id = ANY($1::uuid[])', [games]);
    assert.ok(rows.every((r) => r.attempts === 1), 'each game was claimed once');
    // Every position of every game was searched by exactly one engine (none of these ends in mate).
    const positions = rows.reduce((n, r) => n + r.progress_total, 0);
    assert.equal(a.searched + b.searched, positions);
    assert.ok(a.searched > 0 && b.searched > 0, `both nodes worked (${a.searched} and ${b.searched})`);
  });

  it('serves players in turn: one who queued many games waits between them for another’s', async () => {
    const [a, a2, b, c] = await Promise.all([insertUser(pool), insertUser(pool), insertUser(pool), insertUser(pool)]);
    const queuedAt = Date.now();
    // A plays five games first, then B two; each game queued a millisecond after the one before.
    const aGames: string[] = [];
    for (let i = 0; i < 5; i++) aGames.push(await insertFinishedGame(pool, SCHOLARS_MATE, queuedAt + i, { white: a, black: a2 }));
    const bGames: string[] = [];
    for (let i = 0; i < 2; i++) bGames.push(await insertFinishedGame(pool, SCHOLARS_MATE, queuedAt + 10 + i, { white: c, black: b }));
    start();
    for (const g of [...aGames, ...bGames]) await done(g);
    const { rows } = await pool.query('SELECT game_id FROM game_analyses WHERE game_id = ANY($1::uuid[]) ORDER BY analyzed_at', [[...aGames, ...bGames]]);
    const name = new Map([...aGames.map((g, i) => [g, `A${i + 1}`] as const), ...bGames.map((g, i) => [g, `B${i + 1}`] as const)]);
    assert.deepEqual(
      rows.map((r) => name.get(r.game_id)),
      ['A1', 'B1', 'A2', 'B2', 'A3', 'A4', 'A5'],
    );
  });

  it('gives its running job back and leaves no engine process when stopped', async () => {
    const gameId = await insertFinishedGame(pool, ITALIAN);
    const first = start({ depth: SLOW_DEPTH });
    await until('some progress', async () => ((await findAnalysis(pool, gameId))!.progressDone > 2 ? true : undefined));
    const pids = first.enginePids();
    assert.equal(pids.length, 1);
    await first.stop();
    assert.deepEqual(pids.filter(alive), [], 'no engine outlives the workers');
    const released = await findAnalysis(pool, gameId);
    assert.equal(released!.status, 'queued');
    assert.equal(released!.lockedUntil, null);
    const kept = released!.progressDone;
    assert.ok(kept > 2);
    const second = start({ depth: SLOW_DEPTH });
    const row = await done(gameId);
    assert.equal(row.attempts, 2);
    assert.equal(second.searched, ITALIAN.length + 1 - kept, 'the second worker searched only the rest');
  });

  it('stops at once when stopped while looking for work (no wait for a poll that a manual clock never fires)', async () => {
    const clock = new ManualClock(Date.now());
    const workers = startAnalysisWorkers({
      pool,
      log: createLogger('silent'),
      clock,
      command: engineCommand(),
      workers: 2,
      depth: DEPTH,
      node: 'test-node',
      lockMs: 20_000,
      openings: loadOpeningBook,
    });
    // Both loops are claiming (a query in flight) right now; nothing is queued.
    const stopped = await Promise.race([workers.stop().then(() => true), new Promise((r) => setTimeout(() => r(false), 3000))]);
    assert.equal(stopped, true, 'stop() returned');
  });
});
