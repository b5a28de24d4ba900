/**
 * Benchmark: what idle correspondence games cost (DESIGN 2.11: "10,000 correspondence games with
 * nobody connected cost no per-game timers and no memory on any node"). One service process
 * (`npm start`'s) against a fresh database:
 *
 *   baseline   the service after its players signed up and a warm-up of reads: its RSS, V8 heap
 *              used, active handles and the resources behind them (timers by type,
 *              `process.getActiveResourcesInfo()` through prom-client's `nodejs_active_resources`),
 *              and the live games it hosts (`chess_live_games`), from /metrics;
 *   games      --api games made through the API (challenge, accept, 1. e4 e5 over REST: each move
 *              makes the room from PostgreSQL, which goes again once it answered), and the rest of
 *              --games inserted as rows (test/support/fixtures.ts), as an accepted challenge leaves
 *              them; nobody connected;
 *   idle       the same figures with the games there, once no room is left;
 *   cold move  a REST move on a game with no room (the room made again from PostgreSQL, the move
 *              made durable, answered), against the opponent's reply at once, while that room is
 *              still there (hot);
 *   doubled    as many games again (rows), and the same figures: what grows with the number of
 *              idle games, apart from what the setup's requests left behind;
 *   sweep      the sweeper's query for deadlines within the minute (EXPLAIN ANALYZE): it runs once
 *              a second on every node, whatever the number of games.
 *
 * Each measurement follows --settle seconds of quiet (idle connections close). Memory is sampled --samples times a second apart; the minimum of the heap (what survives the
 * collections between samples) and the median of the RSS are reported. Prints one JSON report.
 *
 *   npx tsx loadtest/correspondence.ts [--games 10000] [--api 200] [--cold 100] [--samples 10] [--settle 35]
 *
 * DATABASE_URL names the PostgreSQL server (a fresh database is created and dropped).
 */
import '../src/polyfills.ts';
import os from 'node:os';
import pg from 'pg';
import { createDatabase } from '../test/support/database.ts';
import { insertCorrespondenceGames } from '../test/support/fixtures.ts';
import { postData, requestJson, startServiceProcess } from '../test/support/process.ts';
import { processCpu } from './cpu.ts';
import { percentile } from '../test/support/percentiles.ts';
import { arg } from './args.ts';

const GAMES = arg('games', 10_000);
const API_GAMES = arg('api', 200);
const COLD = arg('cold', 100);
const SAMPLES = arg('samples', 10);
// Before each measurement the service is left alone this long: its idle PostgreSQL connections
// (30 s, src/db/pool.ts) and keep-alive HTTP sockets (5 s) close, so each measurement holds only
// what stays, and the handle counts compare like with like.
const SETTLE_S = arg('settle', 35);
const PLAYERS = 100;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

type Player = { id: string; token: string };
type Figures = {
  rss_mb: number;
  heap_used_mb: number;
  active_handles: number;
  active_resources: Record<string, number>;
  live_games: number;
  cpu_ms_per_s: number;
};

/** The service's own figures from /metrics (prom-client's process metrics and ours). */
async function metrics(base: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) values.set(m[1], Number(m[2]));
  }
  return values;
}

/** `SAMPLES` looks a second apart: the heap's minimum, the RSS's median, timers and handles as last seen, CPU over the span. */
async function figures(base: string, pid: number): Promise<Figures> {
  const heap: number[] = [];
  const rss: number[] = [];
  let last = new Map<string, number>();
  const cpuStart = processCpu(pid);
  const started = performance.now();
  for (let i = 0; i < SAMPLES; i++) {
    if (i > 0) await sleep(1000);
    last = await metrics(base);
    heap.push(last.get('nodejs_heap_size_used_bytes') ?? NaN);
    rss.push(last.get('process_resident_memory_bytes') ?? NaN);
  }
  const cpuMs = (processCpu(pid) - cpuStart) * 1000;
  const resources: Record<string, number> = {};
  for (const [key, value] of last) {
    const m = /^nodejs_active_resources\{type="([^"]+)"\}$/.exec(key);
    if (m) resources[m[1]] = value;
  }
  return {
    rss_mb: round(percentile(rss, 0.5) / 2 ** 20),
    heap_used_mb: round(Math.min(...heap) / 2 ** 20),
    active_handles: last.get('nodejs_active_handles_total') ?? NaN,
    active_resources: resources,
    live_games: last.get('chess_live_games') ?? NaN,
    cpu_ms_per_s: round(cpuMs / ((performance.now() - started) / 1000), 2),
  };
}

async function signup(base: string, name: string): Promise<Player> {
  const d = await postData(base, '/v1/auth/signup', { email: `${name}@example.com`, password: 'benchmark1', username: name });
  return { id: d.user.id, token: d.session.access_token };
}

async function move(base: string, gameId: string, player: Player, uci: string): Promise<number> {
  const started = performance.now();
  const answer = await requestJson(base, 'POST', `/v1/games/${gameId}/moves`, { from: uci.slice(0, 2), to: uci.slice(2, 4) }, player.token);
  if (answer.status !== 200) throw new Error(`move ${uci} in ${gameId}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return performance.now() - started;
}

/** Waits until the service hosts no game (every room rested). */
async function noRoomLeft(base: string): Promise<number> {
  const started = performance.now();
  while ((await metrics(base)).get('chess_live_games') !== 0) {
    if (performance.now() - started > 60_000) throw new Error('rooms still hosted a minute later');
    await sleep(200);
  }
  return performance.now() - started;
}

async function main() {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const db = await createDatabase(serverUrl);
  const pool = new pg.Pool({ connectionString: db.url, max: 4 });
  const service = await startServiceProcess(db.url, { env: { PUBLIC_URL: 'http://chess.correspondence.bench' } });
  const base = service.base;
  const pid = service.child.pid!;
  const report: Record<string, unknown> = {
    benchmark: 'idle correspondence games: the service with and without them, in the same run',
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    load_average_at_start: os.loadavg().map((l) => round(l, 2)),
    games: GAMES,
    api_games: API_GAMES,
    samples: SAMPLES,
    settle_s: SETTLE_S,
  };
  try {
    const tag = process.pid % 10000;
    const players: Player[] = [];
    for (let i = 0; i < PLAYERS; i += 10) {
      players.push(...(await Promise.all(Array.from({ length: 10 }, (_, j) => signup(base, `c${tag}_${i + j}`)))));
    }
    // Warm-up: the read paths the games' figures will have gone through, so their code is compiled on both sides.
    for (const p of players) await requestJson(base, 'GET', '/v1/users/me', undefined, p.token);
    await requestJson(base, 'GET', '/v1/games?time_control=correspondence&my_turn=true', undefined, players[0].token);
    await sleep(SETTLE_S * 1000);
    const baseline = await figures(base, pid);

    // Through the API: challenge, accept, 1. e4 e5 over REST (each move opens the room; it rests after).
    const made = performance.now();
    const apiGames: string[] = [];
    for (let i = 0; i < API_GAMES; i += 20) {
      apiGames.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(20, API_GAMES - i) }, async (_, j) => {
            const white = players[(i + j) % PLAYERS];
            const black = players[(i + j + 1) % PLAYERS];
            const game = await postData(
              base,
              '/v1/games',
              { type: 'challenge', opponent_id: black.id, time_control: 'correspondence', days_per_move: 3, color: 'white' },
              white.token,
            );
            await postData(base, `/v1/games/${game.id}/accept`, {}, black.token);
            await move(base, game.id, white, 'e2e4');
            await move(base, game.id, black, 'e7e5');
            return game.id as string;
          }),
        )),
      );
    }
    const apiSeconds = (performance.now() - made) / 1000;
    // The rest as rows, between the same players, White to move with days left.
    const inserted: string[] = [];
    const rest = GAMES - API_GAMES;
    for (let p = 0; p < PLAYERS && inserted.length < rest; p++) {
      const count = Math.ceil(rest / PLAYERS);
      inserted.push(
        ...(await insertCorrespondenceGames(pool, players[p].id, players[(p + 1) % PLAYERS].id, {
          count: Math.min(count, rest - inserted.length),
          daysPerMove: 3,
          turnStartedAt: new Date(Date.now() - 3_600_000),
        })),
      );
    }
    const restedMs = await noRoomLeft(base);
    const { rows: counted } = await pool.query(`SELECT count(*)::int AS n FROM games WHERE status = 'active' AND time_control = 'correspondence'`);
    await sleep(SETTLE_S * 1000);
    const idle = await figures(base, pid);

    // Cold moves: a game with no room; hot: the reply at once, its room still there.
    const cold: number[] = [];
    const hot: number[] = [];
    const byId = new Map<string, { white: Player; black: Player }>();
    const { rows: seats } = await pool.query('SELECT id, white_id, black_id FROM games WHERE id = ANY($1::uuid[])', [inserted.slice(0, COLD)]);
    const playerById = new Map(players.map((p) => [p.id, p]));
    for (const s of seats) byId.set(s.id, { white: playerById.get(s.white_id)!, black: playerById.get(s.black_id)! });
    for (const id of inserted.slice(0, COLD)) {
      const { white, black } = byId.get(id)!;
      cold.push(await move(base, id, white, 'd2d4'));
      hot.push(await move(base, id, black, 'd7d5'));
    }
    const coldRestedMs = await noRoomLeft(base);
    await sleep(SETTLE_S * 1000);
    const after = await figures(base, pid);

    // As many games again, as rows: what scales with the number of idle games shows here, apart
    // from what the setup's requests left behind (compiled code, buffers) in `idle`.
    const more: string[] = [];
    for (let p = 0; p < PLAYERS; p++) {
      more.push(
        ...(await insertCorrespondenceGames(pool, players[p].id, players[(p + 1) % PLAYERS].id, {
          count: Math.ceil(GAMES / PLAYERS),
          daysPerMove: 7,
          turnStartedAt: new Date(Date.now() - 3_600_000),
        })),
      );
    }
    await sleep(SETTLE_S * 1000);
    const doubled = await figures(base, pid);

    const plan = await pool.query(
      `EXPLAIN (ANALYZE, FORMAT JSON) SELECT id FROM games
        WHERE status = 'active' AND move_deadline IS NOT NULL AND move_deadline <= $1
          AND (lease_expires_at IS NULL OR lease_expires_at < now())
        ORDER BY move_deadline LIMIT 100`,
      [new Date(Date.now() + 60_000)],
    );
    const top = plan.rows[0]['QUERY PLAN'][0];
    const indexOf = (node: any): string | undefined => node['Index Name'] ?? node.Plans?.map(indexOf).find(Boolean);

    const stats = (xs: number[]) => ({ p50_ms: round(percentile(xs, 0.5)), p90_ms: round(percentile(xs, 0.9)), max_ms: round(Math.max(...xs)), n: xs.length });
    const delta = (a: Figures, b: Figures, games: number) => ({
      rss_mb: round(b.rss_mb - a.rss_mb),
      heap_used_mb: round(b.heap_used_mb - a.heap_used_mb),
      active_handles: b.active_handles - a.active_handles,
      timeouts: (b.active_resources.Timeout ?? 0) - (a.active_resources.Timeout ?? 0),
      heap_bytes_per_game: Math.round(((b.heap_used_mb - a.heap_used_mb) * 2 ** 20) / games),
    });
    Object.assign(report, {
      active_correspondence_games: counted[0].n,
      api_setup_s: round(apiSeconds),
      rooms_rested_after_setup_ms: Math.round(restedMs),
      baseline,
      idle,
      idle_minus_baseline: delta(baseline, idle, GAMES),
      cold_move: stats(cold),
      hot_move: stats(hot),
      rooms_rested_after_cold_moves_ms: Math.round(coldRestedMs),
      after_cold_moves: after,
      doubled_games: more.length + GAMES,
      doubled,
      doubled_minus_after_cold_moves: delta(after, doubled, more.length),
      sweep_query: { index: indexOf(top.Plan) ?? null, execution_ms: round(top['Execution Time'], 3), planning_ms: round(top['Planning Time'], 3) },
    });
  } finally {
    service.child.kill('SIGTERM');
    await service.exited;
    await pool.end();
    await db.drop();
  }
  console.log(JSON.stringify(report, null, 2));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
