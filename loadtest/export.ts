/**
 * Benchmark: GET /users/{id}/games/export (DESIGN 2.12) on a database of 1,000,000 finished games
 * (loadtest/gamesDb.ts) plus one player with `--user-games` (100,000) finished games of their own,
 * each with its moves and clocks (real move sequences: `--lines` distinct random games, 20 to 100
 * plies). The database is a copy of the reads benchmark's (CREATE DATABASE … TEMPLATE), built once
 * and kept as `chess_bench_export_<games>_<user games>`.
 *
 *   npx tsx loadtest/export.ts [--games 1000000] [--user-games 100000] [--lines 2000] [--slow-games 20000]
 *                              [--slow-rate 2000000] [--warm-games 20000] [--fresh]
 *
 * Measured, on the service's own process (`npm start`, RATE_LIMITS=off), after a first export of
 * `--warm-games` games (reported too: V8's heap grows to its working size during it):
 * - baseline: one game at a time through GET /games/{id}/pgn (1 connection, 3 s): games per second;
 * - the whole export of the player (PGN, default options; then NDJSON; then PGN with opening=false)
 *   read as fast as the client can: games per second, first byte, and the service's RSS sampled
 *   every 100 ms (before, peak, peak minus before);
 * - a client that reads `--slow-rate` bytes a second: the export of `--slow-games` games takes as
 *   long as the client (expected = bytes / rate), with the service's RSS throughout;
 * - the cost of naming a game's opening when no earlier game had the same first 40 plies.
 * Prints one JSON report. DATABASE_URL names the PostgreSQL server; BENCH_SERVER_NODE_ARGS adds node
 * options to the service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import '../src/polyfills.ts';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { Chess } from 'chess.js';
import pg from 'pg';
import { createOpeningBook, loadOpeningBook } from '../src/domain/openings.ts';
import { postData, startServiceProcess, type ServiceProcess } from '../test/support/process.ts';
import { benchDatabaseName, ensureGamesDatabase } from './gamesDb.ts';
import { arg, flag } from './args.ts';

const GAMES = arg('games', 1_000_000);
const USER_GAMES = arg('user-games', 100_000);
const LINES = arg('lines', 2000);
const SLOW_GAMES = arg('slow-games', 20_000);
const SLOW_RATE = arg('slow-rate', 2_000_000);
const WARM_GAMES = arg('warm-games', 20_000);
const FRESH = flag('fresh');
const log = (line: string) => console.error(line);

const HEAVY = 'export_bench_player';

/** Random legal games of 20 to 100 plies (a fixed seed: the same lines every build). */
function randomLines(count: number): { sans: string[]; ucis: string[]; fen: string; pgn: string }[] {
  let s = 4242;
  const rand = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const out = [];
  for (let k = 0; k < count; k++) {
    const chess = new Chess();
    const target = 20 + Math.floor(rand() * 81);
    const sans: string[] = [];
    const ucis: string[] = [];
    while (sans.length < target && !chess.isGameOver()) {
      // SAN strings: the verbose form builds two FENs per legal move, ten times slower.
      const moves = chess.moves();
      const m = chess.move(moves[Math.floor(rand() * moves.length)]);
      sans.push(m.san);
      ucis.push(`${m.from}${m.to}${m.promotion ?? ''}`);
    }
    out.push({ sans, ucis, fen: chess.fen(), pgn: sans.map((m, i) => (i % 2 === 0 ? `${i / 2 + 1}. ${m}` : m)).join(' ') });
  }
  return out;
}

/** The export database: the reads benchmark's, copied, with the heavy player added. */
async function ensureExportDatabase(serverUrl: string): Promise<{ url: string; name: string; built: boolean; buildSeconds?: number }> {
  const source = await ensureGamesDatabase(serverUrl, { games: GAMES, users: 20_000, log });
  const name = `chess_bench_export_${GAMES}_${USER_GAMES}`;
  const mark = `export benchmark: ${GAMES} games, ${USER_GAMES} of one player, ${LINES} lines`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query(`SELECT shobj_description(oid, 'pg_database') AS mark FROM pg_database WHERE datname = $1`, [name]);
    if (rows[0]?.mark === mark && !FRESH) return { url: url.toString(), name, built: false };
    const t0 = Date.now();
    log(`copying ${benchDatabaseName(GAMES)} to ${name}`);
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${source.name}`);
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    try {
      await addHeavyPlayer(db);
    } finally {
      await db.end();
    }
    await admin.query(`COMMENT ON DATABASE ${name} IS '${mark}'`);
    return { url: url.toString(), name, built: true, buildSeconds: Math.round((Date.now() - t0) / 1000) };
  } finally {
    await admin.end();
  }
}

async function addHeavyPlayer(db: pg.Client): Promise<void> {
  await db.query(`SET session_replication_role = replica`);
  const { rows } = await db.query(
    `INSERT INTO users (email, username, password_hash, country, email_verified)
     VALUES ('${HEAVY}@example.com', '${HEAVY}', '$2b$04$benchmarkbenchmarkbenchmarkbenchmarkbenchmarkbenchmark', 'NO', true) RETURNING id`,
  );
  const heavy = rows[0].id as string;
  log(`lines: ${LINES}`);
  const lines = randomLines(LINES);
  await db.query(`CREATE TEMP TABLE lines (k int PRIMARY KEY, sans text[], ucis text[], fen text, pgn text)`);
  for (const [k, l] of lines.entries()) {
    await db.query(`INSERT INTO lines VALUES ($1, $2, $3, $4, $5)`, [k, l.sans, l.ucis, l.fen, l.pgn]);
  }
  await db.query(`CREATE TEMP TABLE opponents AS SELECT (row_number() OVER (ORDER BY id)) - 1 AS n, id FROM (SELECT id FROM users WHERE id <> $1 LIMIT 1000) u`, [heavy]);
  const CHUNK = 10_000;
  for (let from = 0; from < USER_GAMES; from += CHUNK) {
    const to = Math.min(USER_GAMES, from + CHUNK) - 1;
    // Even games as White, odd as Black; one ended every 10 minutes back from now.
    await db.query(
      `WITH g AS (
         INSERT INTO games (kind, created_by, white_id, black_id, status, result, winner, termination, time_control, initial_time,
                            increment, rated, fen, pgn, move_count, white_time_ms, black_time_ms, white_rating, black_rating,
                            white_rating_change, black_rating_change, room_state, event_seq, created_at, updated_at, started_at,
                            finished_at, last_move_at)
         SELECT 'matchmaking', $1, CASE WHEN i % 2 = 0 THEN $1::uuid ELSE o.id END, CASE WHEN i % 2 = 0 THEN o.id ELSE $1::uuid END,
                'finished', r.result, r.winner, r.termination, 'blitz', 180, 2, i % 5 <> 0, l.fen, l.pgn, cardinality(l.sans),
                60000, 60000, 1500 + i % 300, 1600 - i % 300, CASE WHEN i % 5 <> 0 THEN 5 ELSE 0 END, CASE WHEN i % 5 <> 0 THEN -5 ELSE 0 END,
                jsonb_build_object('bench_line', l.k), cardinality(l.sans) + 1,
                e - interval '10 minutes', e, e - interval '10 minutes', e, e
           FROM generate_series($2::int, $3::int) i
           CROSS JOIN LATERAL (SELECT now() - make_interval(mins => i * 10) AS e) t
           JOIN lines l ON l.k = i % $4::int
           JOIN opponents o ON o.n = i % 1000
           CROSS JOIN LATERAL (SELECT CASE i % 3 WHEN 0 THEN '1-0' WHEN 1 THEN '0-1' ELSE '1/2-1/2' END AS result,
                                      CASE i % 3 WHEN 0 THEN 'white' WHEN 1 THEN 'black' END AS winner,
                                      CASE i % 3 WHEN 2 THEN 'agreement' ELSE 'resignation' END AS termination) r
         RETURNING id, room_state)
       INSERT INTO game_moves (game_id, ply, san, uci, clock_ms)
       SELECT g.id, p, l.sans[p], l.ucis[p], 180000 - p * 700 + (p % 7) * 300
         FROM g JOIN lines l ON l.k = (g.room_state->>'bench_line')::int
         CROSS JOIN LATERAL generate_series(1, cardinality(l.sans)) p`,
      [heavy, from, to, LINES],
    );
    log(`  ${to + 1} games of ${HEAVY}`);
  }
  await db.query(`UPDATE games SET room_state = '{}' WHERE room_state ? 'bench_line'`);
  await db.query(`SET session_replication_role = DEFAULT`);
  await db.query(`DELETE FROM game_list_count_deltas`);
  await db.query(`DELETE FROM game_list_counts`);
  await db.query(
    `INSERT INTO game_list_counts (status, time_control, result, n)
     SELECT status, time_control, COALESCE(result, ''), count(*) FROM games WHERE status <> 'pending' GROUP BY 1, 2, 3`,
  );
  log('vacuum analyze');
  await db.query('VACUUM (ANALYZE) games');
  await db.query('VACUUM (ANALYZE) game_moves');
}

const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

type Sampled = {
  before_mb: number;
  peak_mb: number;
  after_mb: number;
  growth_mb: number;
  /** The RSS at each tenth of the export's time: flat means it stops growing, whatever the count. */
  by_tenth_mb: number[];
  /** V8's spaces at the end (prom-client's nodejs_heap_space_size_total_bytes): where the growth went. */
  heap_spaces_after_mb: Record<string, number>;
  samples: number;
};

async function heapSpaces(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const spaces: Record<string, number> = {};
  for (const m of text.matchAll(/^nodejs_heap_space_size_total_bytes\{space="(\w+)"\} (\S+)$/gm)) {
    if (Number(m[2]) > 1e6) spaces[m[1]] = Number((Number(m[2]) / 1e6).toFixed(1));
  }
  return spaces;
}

/** Samples the service's RSS every 100 ms while `work` runs. */
async function withRss<T>(pid: number, base: string, work: () => Promise<T>): Promise<{ result: T; rss: Sampled }> {
  const before = rssMb(pid);
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(rssMb(pid)), 100);
  try {
    const result = await work();
    const after = rssMb(pid);
    const peak = Math.max(before, after, ...samples);
    const round = (x: number) => Number(x.toFixed(1));
    const by_tenth_mb = Array.from({ length: 10 }, (_, i) => round(samples[Math.min(samples.length - 1, Math.floor(((i + 1) * samples.length) / 10) - 1)] ?? after));
    return {
      result,
      rss: {
        before_mb: round(before), peak_mb: round(peak), after_mb: round(after), growth_mb: round(peak - before), by_tenth_mb,
        heap_spaces_after_mb: await heapSpaces(base), samples: samples.length,
      },
    };
  } finally {
    clearInterval(timer);
  }
}

type Read = { games: number; bytes: number; seconds: number; first_byte_ms: number };

/** Reads an export; `rate` (bytes/s) makes a slow client that pauses whenever it is ahead of it. */
function readExport(base: string, path: string, accept: string, rate?: number): Promise<Read> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let firstByte = 0;
    let bytes = 0;
    let games = 0;
    let tail = '';
    const marker = accept.includes('ndjson') ? '\n' : '[Event "';
    const req = http.get(`${base}${path}`, { headers: { accept } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`${path}: ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (!firstByte) firstByte = performance.now() - t0;
        bytes += Buffer.byteLength(chunk);
        const text = tail + chunk;
        games += text.split(marker).length - 1;
        // What may hold the start of a marker cut by the chunk's end.
        tail = marker.length > 1 ? text.slice(-(marker.length - 1)) : '';
        if (rate) {
          const ahead = bytes / rate - (performance.now() - t0) / 1000;
          if (ahead > 0) {
            res.pause();
            setTimeout(() => res.resume(), ahead * 1000);
          }
        }
      });
      res.on('end', () => resolve({ games, bytes, seconds: (performance.now() - t0) / 1000, first_byte_ms: Math.round(firstByte) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/** One game at a time through GET /games/{id}/pgn for `seconds`: the per-request path the export replaces. */
async function singleGameBaseline(base: string, token: string, ids: string[], seconds: number) {
  const t0 = performance.now();
  let n = 0;
  while (performance.now() - t0 < seconds * 1000) {
    const res = await fetch(`${base}/v1/games/${ids[n % ids.length]}/pgn`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`/pgn: ${res.status}`);
    await res.text();
    n++;
  }
  return { games_per_s: Math.round(n / ((performance.now() - t0) / 1000)), requests: n };
}

function coldOpeningCost(lines: string[][]): { per_game_us: number; lines: number } {
  const book = createOpeningBook(loadOpeningBook().openings); // its own memo: every line is new to it
  const t0 = performance.now();
  for (const sans of lines) book.classifySans(sans);
  return { per_game_us: Math.round(((performance.now() - t0) * 1000) / lines.length), lines: lines.length };
}

async function main() {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const loadAtStart = os.loadavg().map((x) => Number(x.toFixed(2)));
  const db = await ensureExportDatabase(serverUrl);
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  const heavy = (await admin.query('SELECT id FROM users WHERE username = $1', [HEAVY])).rows[0].id as string;
  const sampleIds = (await admin.query(
    `SELECT id FROM games WHERE white_id = $1 AND status = 'finished' ORDER BY finished_at DESC LIMIT 200`, [heavy],
  )).rows.map((r) => r.id as string);
  const counts = (await admin.query(
    `SELECT (SELECT count(*) FROM games WHERE status = 'finished')::int AS finished,
            (SELECT count(*) FROM games WHERE status = 'finished' AND (white_id = $1 OR black_id = $1))::int AS player`, [heavy],
  )).rows[0];
  await admin.end();

  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const service: ServiceProcess = await startServiceProcess(db.url, { nodeArgs, env: { PUBLIC_URL: 'http://chess.export.bench' }, startMs: 300_000 });
  const pid = service.child.pid!;
  const report: Record<string, unknown> = {
    benchmark: 'GET /users/{id}/games/export: games per second and the service RSS (one client at a time)',
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    load_average_at_start: loadAtStart,
    database: { name: db.name, finished_games: counts.finished, games_of_the_player: counts.player, built_now: db.built, build_s: db.buildSeconds },
  };
  try {
    const tag = `x${process.pid % 100000}_${Date.now() % 100000}`;
    const caller = await postData(service.base, '/v1/auth/signup', { email: `${tag}@example.com`, password: 'benchmark1', username: tag });
    // Warm up: the opening book, the query plans, the JIT, and V8's heap, which grows to its working
    // size during the first large export (the first is measured alone below, `first_export_rss`).
    const first = await withRss(pid, service.base, () => readExport(service.base, `/v1/users/${heavy}/games/export?max=${WARM_GAMES}`, 'application/x-chess-pgn'));
    report.first_export_after_start = { games: first.result.games, games_per_s: Math.round(first.result.games / first.result.seconds), rss: first.rss };
    report.baseline_single_game_pgn = await singleGameBaseline(service.base, caller.session.access_token, sampleIds, 3);
    const fast: Record<string, unknown> = {};
    for (const [name, query, accept] of [
      ['pgn_default_options', '', 'application/x-chess-pgn'],
      ['ndjson', '', 'application/x-ndjson'],
      ['pgn_opening_false', 'opening=false', 'application/x-chess-pgn'],
    ] as const) {
      const { result, rss } = await withRss(pid, service.base, () => readExport(service.base, `/v1/users/${heavy}/games/export?${query}`, accept));
      fast[name] = { ...result, mb: Number((result.bytes / 1e6).toFixed(1)), games_per_s: Math.round(result.games / result.seconds), rss };
      log(`${name}: ${JSON.stringify(fast[name])}`);
    }
    report.fast_client = fast;
    const slowPath = `/v1/users/${heavy}/games/export?max=${SLOW_GAMES}`;
    const { result: slow, rss: slowRss } = await withRss(pid, service.base, () => readExport(service.base, slowPath, 'application/x-chess-pgn', SLOW_RATE));
    report.slow_client = {
      rate_bytes_per_s: SLOW_RATE,
      ...slow,
      expected_seconds_at_rate: Number((slow.bytes / SLOW_RATE).toFixed(1)),
      rss: slowRss,
    };
    log(`slow: ${JSON.stringify(report.slow_client)}`);
    report.opening_cold_classification = coldOpeningCost(randomLines(LINES).map((l) => l.sans));
  } finally {
    service.child.kill('SIGTERM');
    await service.exited;
  }
  report.load_average_at_end = os.loadavg().map((x) => Number(x.toFixed(2)));
  console.log(JSON.stringify(report, null, 2));
}

await main();
