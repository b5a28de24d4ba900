/**
 * Benchmark: puzzles on a table of generated puzzles (1,000,000 by default) against real
 * PostgreSQL. Measures, with `--concurrency` requests in flight, GET /puzzles/next (the closest
 * unattempted puzzle), first attempts (judged and rated: the write path) per second, a solving
 * loop (next, then attempt), `next` for a player who has used up the puzzles around their rating,
 * and GET /puzzles lists (their exact totals); beside GET /healthz in the same run as the
 * baseline (what any request through the service costs here). Prints one JSON report with the
 * plans PostgreSQL used for `next`.
 *
 *   npx tsx loadtest/puzzles.ts [--puzzles 1000000] [--users 200] [--requests 4000] [--concurrency 8] [--heavy 5000]
 *
 * The puzzles come from loadtest/puzzleCsv.ts (the sample's positions under new ids, ratings
 * spread like Lichess's) through the importer (its time is reported too). The server runs as a
 * child process, started the way loadtest/moves.ts starts it; DATABASE_URL names the PostgreSQL
 * server (a fresh database is created and dropped).
 */
import '../src/polyfills.ts';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import { explainNextPuzzle, findNextPuzzle } from '../src/db/puzzles.ts';
import { importPuzzleFile } from '../src/services/puzzleImport.ts';
import { createDatabase } from '../test/support/database.ts';
import { postData, startServiceProcess } from '../test/support/process.ts';
import { processCpu } from './cpu.ts';
import { writePuzzleCsv } from './puzzleCsv.ts';
import { percentiles } from '../test/support/percentiles.ts';
import { arg } from './args.ts';

const PUZZLES = arg('puzzles', 1_000_000);
const USERS = arg('users', 200);
const REQUESTS = arg('requests', 4000);
const CONCURRENCY = arg('concurrency', 8);
const HEAVY = arg('heavy', 5000);

type Player = { id: string; token: string; rating: number };
type Timing = { ms: number; status: number };

const loadAverage = () => os.loadavg().map((l) => Number(l.toFixed(2)));

function summarize(name: string, timings: Timing[], wallS: number, cpu?: { server: number }) {
  const failed = timings.filter((t) => t.status >= 400);
  return {
    name,
    requests: timings.length,
    failed: failed.length,
    ...(failed.length ? { failed_statuses: [...new Set(failed.map((t) => t.status))] } : {}),
    per_s: Math.round(timings.length / wallS),
    latency_ms: percentiles(timings.map((t) => t.ms)),
    // The server's own CPU; PostgreSQL's is not told apart from the other databases on a shared server.
    ...(cpu ? { server_cpu_us_per_request: Math.round((cpu.server * 1e6) / timings.length) } : {}),
  };
}

/** Runs `count` requests, `concurrency` at a time; the wall time and each request's latency. */
async function load(count: number, request: (i: number) => Promise<Response>, serverPid: number, concurrency = CONCURRENCY) {
  const timings: Timing[] = [];
  let next = 0;
  const cpu0 = processCpu(serverPid);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) {
        const started = performance.now();
        const res = await request(i);
        await res.arrayBuffer();
        timings.push({ ms: performance.now() - started, status: res.status });
      }
    }),
  );
  const wallS = (performance.now() - t0) / 1000;
  return { timings, wallS, cpu: { server: processCpu(serverPid) - cpu0 } };
}

async function main() {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const db = await createDatabase(serverUrl);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'puzzles-bench-'));
  const pool = createPool(db.url, 4, { statementTimeoutMs: 0 });
  const report: Record<string, unknown> = { benchmark: 'puzzles: next, attempts, lists (HTTP, real PostgreSQL)', node: process.version, cpus: os.cpus().length, load_average_start: loadAverage() };
  let server: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  try {
    const csv = path.join(dir, 'puzzles.csv');
    await writePuzzleCsv(csv, PUZZLES);
    await migrate(pool);
    const importStarted = performance.now();
    const imported = await importPuzzleFile(pool, csv, {});
    const importS = (performance.now() - importStarted) / 1000;
    // The steady state of a table some time after its import: autovacuum has set the visibility map.
    await pool.query('VACUUM ANALYZE puzzles');
    report.import = { rows: imported.rows, inserted: imported.inserted, seconds: Number(importS.toFixed(1)), rows_per_s: Math.round(imported.rows / importS) };
    rmSync(csv);

    server = await startServiceProcess(db.url);
    const { base } = server;
    const pid = server.child.pid!;
    const players: Player[] = [];
    for (let i = 0; i < USERS; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(20, USERS - i) }, async (_, j) => {
          const name = `pz${i + j}_${process.pid % 10000}`;
          const d = await postData(base, '/v1/auth/signup', { email: `${name}@example.com`, password: 'benchmark1', username: name });
          return { id: d.user.id as string, token: d.session.access_token as string, rating: 0 };
        }),
      );
      players.push(...batch);
    }
    // Puzzle ratings spread evenly from 900 to 2100, set as if earned.
    for (const [i, p] of players.entries()) {
      p.rating = Math.round(900 + (1200 * i) / players.length);
      await pool.query(`INSERT INTO user_ratings (user_id, category, rating, rd, volatility, games) VALUES ($1, 'puzzle', $2, 80, 0.09, 100)`, [p.id, p.rating]);
    }
    const heavy = players[0]!;
    // The player at index 0 has used up the HEAVY puzzles around their rating, as `next` serves them
    // to a player whose rating stays put.
    await pool.query(
      `INSERT INTO puzzle_attempts (user_id, puzzle_id, correct, rating_change, first_at, last_at)
       SELECT $1, id, true, 0, now(), now() FROM puzzles ORDER BY abs(rating - $2), id LIMIT $3`,
      [heavy.id, heavy.rating, HEAVY],
    );
    await pool.query('VACUUM ANALYZE puzzle_attempts');
    const light = players.slice(1);
    const auth = (p: Player) => ({ authorization: `Bearer ${p.token}` });
    const get = (p: string, player?: Player) => fetch(`${base}${p}`, { headers: player ? auth(player) : {} });

    // Warm both paths, then measure each phase.
    await load(200, () => get('/healthz'), pid);
    await load(200, (i) => get('/v1/puzzles/next', light[i % light.length]), pid);
    const phases = [];
    // Latency one request at a time (no queue of our own), then throughput with CONCURRENCY in flight.
    // Baselines: /healthz (no token, no database) and /users/me (a token checked, one read).
    for (const concurrency of [1, CONCURRENCY]) {
      const count = concurrency === 1 ? Math.min(REQUESTS, 1000) : REQUESTS;
      const tag = `, ${concurrency} at a time`;
      const healthz = await load(count, () => get('/healthz'), pid, concurrency);
      phases.push(summarize(`GET /healthz (baseline)${tag}`, healthz.timings, healthz.wallS, healthz.cpu));
      const profile = await load(count, (i) => get('/v1/users/me', light[i % light.length]), pid, concurrency);
      phases.push(summarize(`GET /users/me (baseline: token and one read)${tag}`, profile.timings, profile.wallS, profile.cpu));
      const next = await load(count, (i) => get('/v1/puzzles/next', light[i % light.length]), pid, concurrency);
      phases.push(summarize(`GET /puzzles/next${tag}`, next.timings, next.wallS, next.cpu));
    }

    // First attempts at distinct puzzles: each is judged, then rated (user and puzzle) in one transaction.
    const perPlayer = Math.ceil(REQUESTS / light.length);
    const work: Array<{ player: Player; id: string; moves: string[] }> = [];
    for (const player of light) {
      const { rows } = await pool.query(
        `SELECT id, solution FROM puzzles WHERE rating >= $1 ORDER BY rating, id LIMIT $2`,
        [player.rating + 200 + Math.random() * 200, perPlayer],
      );
      for (const r of rows) work.push({ player, id: r.id, moves: r.solution.filter((_: string, k: number) => k % 2 === 0) });
    }
    work.sort(() => Math.random() - 0.5);
    const attempts = await load(
      Math.min(REQUESTS, work.length),
      (i) =>
        fetch(`${base}/v1/puzzles/${work[i]!.id}/attempt`, {
          method: 'POST',
          headers: { ...auth(work[i]!.player), 'content-type': 'application/json' },
          body: JSON.stringify({ moves: work[i]!.moves, time_ms: 12_000 }),
        }),
      pid,
    );
    phases.push(summarize('POST /puzzles/{id}/attempt (first attempts: judged and rated)', attempts.timings, attempts.wallS, attempts.cpu));

    // The solving loop a player runs: next, then an attempt at what it gave.
    const loopTimings: Timing[] = [];
    const loopNext: Timing[] = [];
    let turn = 0;
    const loopStart = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (let i = turn++; i < REQUESTS / 2; i = turn++) {
          const player = light[i % light.length]!;
          let started = performance.now();
          const res = await get('/v1/puzzles/next', player);
          const puzzle = (await res.json()).data;
          loopNext.push({ ms: performance.now() - started, status: res.status });
          // The player finds the solution (read here, outside the timing), or fails every third one.
          const { rows } = await pool.query('SELECT solution FROM puzzles WHERE id = $1', [puzzle.id]);
          const solving = rows[0].solution.filter((_: string, k: number) => k % 2 === 0);
          started = performance.now();
          const answer = await fetch(`${base}/v1/puzzles/${puzzle.id}/attempt`, {
            method: 'POST',
            headers: { ...auth(player), 'content-type': 'application/json' },
            body: JSON.stringify({ moves: i % 3 === 2 ? solving.slice(0, 1) : solving }),
          });
          await answer.arrayBuffer();
          loopTimings.push({ ms: performance.now() - started, status: answer.status });
        }
      }),
    );
    const loopS = (performance.now() - loopStart) / 1000;
    phases.push(summarize('solving loop: GET /puzzles/next (beside attempts)', loopNext, loopS));
    phases.push(summarize('solving loop: POST /puzzles/{id}/attempt (first attempts)', loopTimings, loopS));

    const heavyNext = await load(Math.min(REQUESTS, 1000), () => get('/v1/puzzles/next', heavy), pid);
    phases.push(summarize(`GET /puzzles/next, a player who attempted the ${HEAVY} puzzles around their rating`, heavyNext.timings, heavyNext.wallS, heavyNext.cpu));

    for (const [name, url] of [
      ['GET /puzzles (page 1, exact total of every puzzle)', '/v1/puzzles'],
      ['GET /puzzles?theme=mateIn2', '/v1/puzzles?theme=mateIn2'],
      ['GET /puzzles?min_rating=1400&max_rating=1600&sort=-popularity', '/v1/puzzles?min_rating=1400&max_rating=1600&sort=-popularity'],
    ] as const) {
      const list = await load(Math.min(REQUESTS, 400), () => get(url), pid);
      phases.push(summarize(name, list.timings, list.wallS, list.cpu));
    }
    // The query alone, one at a time from this process: what PostgreSQL spends, without HTTP.
    const sqlOnly = async (name: string, players: Player[], count: number) => {
      const timings: Timing[] = [];
      const t0 = performance.now();
      for (let i = 0; i < count; i++) {
        const started = performance.now();
        await findNextPuzzle(pool, players[i % players.length]!.id, 1500);
        timings.push({ ms: performance.now() - started, status: 200 });
      }
      return summarize(name, timings, (performance.now() - t0) / 1000);
    };
    phases.push(await sqlOnly('findNextPuzzle, the SQL alone (one at a time)', light, 1000));
    phases.push(await sqlOnly(`findNextPuzzle, the SQL alone, the player who attempted the ${HEAVY} around their rating`, [heavy], 200));
    report.phases = phases;
    report.concurrency = CONCURRENCY;
    report.puzzles = Number((await pool.query('SELECT count(*)::int AS n FROM puzzles')).rows[0].n);
    report.plan_next_typical_player = await explainNextPuzzle(pool, light[0]!.id, 1500);
    report.plan_next_heavy_player = await explainNextPuzzle(pool, heavy.id, 1500);
    report.load_average_end = loadAverage();
    console.log(JSON.stringify(report, null, 2));
  } finally {
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await pool.end();
    await db.drop();
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
