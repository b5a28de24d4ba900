/**
 * Benchmark: the REST read path against `GET /healthz` in the same run. autocannon (50
 * connections) drives, one endpoint at a time, each right after a run of `/healthz` whose rate is
 * its baseline, in `--rounds` rounds (the round with the median ratio is reported, with every
 * ratio): `GET /games/{id}` of an active game with 20 moves (authenticated, a player),
 * `GET /users/me` (with the session's JWT, and with a personal access token), and `GET /games` with filters, search and sort on a database of 1,000,000
 * finished games (loadtest/gamesDb.ts builds it once and keeps it). For each: requests/s,
 * latency p50/p99, the ratio to `/healthz`, the service's and PostgreSQL's CPU per request, and
 * the SQL statements the service sent per request. Then a list's latency alone (1 connection).
 * Prints one JSON report.
 *
 *   npx tsx loadtest/reads.ts [--games 1000000] [--duration 10] [--rounds 3] [--connections 50]
 *                             [--only game_detail,users_me,…] [--rate-limits] [--redis redis://127.0.0.1:6379/11]
 *
 * The service is `npm start`'s process on its own (its CPU is its own), with RATE_LIMITS=off;
 * `--rate-limits` measures `/users/me` and `/games/{id}` with requests spread over 600 users (so
 * none is refused: the limiter's cost, not 429s) on that process, then on a second one with the
 * limits on.
 * `--redis` gives the service Redis (presence, counters, the session revocations), as a cluster
 * node has. DATABASE_URL names the PostgreSQL server. BENCH_SERVER_NODE_ARGS adds node options
 * to the service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import '../src/polyfills.ts';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { postData, requestJson, startServiceProcess, type ServiceProcess } from '../test/support/process.ts';
import { ensureGamesDatabase } from './gamesDb.ts';
import { postgresCpu, processCpu } from './cpu.ts';
import { LINE } from './setup.ts';
import { arg, flag } from './args.ts';

const GAMES = arg('games', 1_000_000);
const DURATION = arg('duration', 10);
const CONNECTIONS = arg('connections', 50);
const ONLY = arg('only', '').split(',').filter(Boolean);
const REDIS_URL = arg('redis', '');
const RATE_LIMITS = flag('rate-limits');
const ROUNDS = arg('rounds', 3);

type Target = { name: string; path: string; token?: string | (() => string) };
type Run = { req_per_s: number; p50_ms: number; p99_ms: number; non_2xx: number; errors: number; requests: number };

async function main() {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const db = await ensureGamesDatabase(serverUrl, { games: GAMES, users: 20_000, log: (l) => console.error(l) });
  const picks = await pickPlayers(db.url);
  const nodeArgs = ['--import', './loadtest/queryCounter.mjs', ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  // Both processes (limits off, then on) sign and check tokens alike: the users made on the
  // first are used on the second, whose signup limit (5 a minute) would not let 600 in.
  const env = {
    FIRST_MOVE_SECONDS: '900',
    JWT_SECRET: randomBytes(32).toString('hex'),
    PUBLIC_URL: 'http://chess.reads.bench',
    ...(REDIS_URL ? { REDIS_URL } : {}),
  };
  const load = loadavg();
  const report: Record<string, unknown> = {
    benchmark: 'REST read path against GET /healthz in the same run (autocannon)',
    node: process.version,
    cpus: os.cpus().length,
    load_average_at_start: load,
    connections: CONNECTIONS,
    duration_s: DURATION,
    database: { name: db.name, games: GAMES, built_now: db.built, build_s: db.buildSeconds },
    rounds: ROUNDS,
    rate_limits: 'off',
    redis: REDIS_URL ? 'on' : 'off',
  };

  const service = await startCounted(db.url, nodeArgs, env);
  let limitedUsers: string[] = [];
  let setup: { gameId: string; token: string };
  try {
    setup = await setupActiveGame(service.process.base);
    // The same read with a personal access token (DESIGN 2.12) instead of the session's JWT.
    const personalToken = (await postData(service.process.base, '/v1/account/tokens', { description: 'bench', scopes: ['account:read'] }, setup.token)).token as string;
    // 60 reads of a game a minute per user: 600 users carry 36,000 a minute without a 429.
    if (RATE_LIMITS) limitedUsers = await signupMany(service.process.base, 600);
    const targets: Target[] = [
      { name: 'game_detail', path: `/v1/games/${setup.gameId}`, token: setup.token },
      { name: 'users_me', path: '/v1/users/me', token: setup.token },
      { name: 'users_me_personal_token', path: '/v1/users/me', token: personalToken },
      { name: 'list_default', path: '/v1/games', token: setup.token },
      { name: 'list_status_tc_sort_updated', path: '/v1/games?status=finished&time_control=blitz&sort=-updated_at', token: setup.token },
      { name: 'list_result_oldest_first', path: '/v1/games?result=1/2-1/2&sort=created_at&order=asc', token: setup.token },
      { name: 'list_busiest_player', path: `/v1/games?player_id=${picks.busiest}`, token: setup.token },
      { name: 'list_typical_player_finished', path: `/v1/games?player_id=${picks.typical}&status=finished`, token: setup.token },
      { name: 'list_search_common', path: '/v1/games?search=tal', token: setup.token },
      { name: 'list_search_rare_filtered', path: '/v1/games?search=fischer_c&time_control=blitz&sort=updated_at&order=asc', token: setup.token },
      { name: 'list_page_50', path: '/v1/games?status=finished&page=50', token: setup.token },
    ].filter((t) => ONLY.length === 0 || ONLY.includes(t.name));
    // Every target must answer 200 before it is measured.
    for (const t of targets) {
      const answer = await requestJson(service.process.base, 'GET', t.path, undefined, t.token as string);
      if (answer.status !== 200) throw new Error(`${t.name}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
    const results: Record<string, unknown> = {};
    for (const t of targets) results[t.name] = await measure(service, t);
    report.endpoints = results;
    // What one request costs when nothing waits in line: the list queries alone.
    const alone: Record<string, unknown> = {};
    for (const t of targets.filter((x) => x.name.startsWith('list_'))) {
      await settle(service);
      const r = await cannon(service.process.base, t, 1, Math.min(DURATION, 5));
      alone[t.name] = { p50_ms: r.p50_ms, p99_ms: r.p99_ms, req_per_s: r.req_per_s };
    }
    report.lists_one_connection = alone;
    if (RATE_LIMITS) {
      // The same requests as with the limits on below: 600 users' tokens in turn.
      let next = 0;
      const token = () => limitedUsers[next++ % limitedUsers.length];
      report.rate_limits_off_600_users = {
        game_detail: await measure(service, { name: 'game_detail', path: `/v1/games/${setup.gameId}`, token }),
        users_me: await measure(service, { name: 'users_me', path: '/v1/users/me', token }),
      };
    }
  } finally {
    await service.stop();
  }

  if (RATE_LIMITS) {
    const limited = await startCounted(db.url, nodeArgs, { ...env, RATE_LIMITS: 'on' });
    try {
      let next = 0;
      const token = () => limitedUsers[next++ % limitedUsers.length];
      report.rate_limits_on_600_users = {
        game_detail: await measure(limited, { name: 'game_detail', path: `/v1/games/${setup!.gameId}`, token }),
        users_me: await measure(limited, { name: 'users_me', path: '/v1/users/me', token }),
      };
    } finally {
      await limited.stop();
    }
  }
  report.load_average_at_end = loadavg();
  console.log(JSON.stringify(report, null, 2));
}

const loadavg = () => os.loadavg().map((x) => Number(x.toFixed(2)));

type Counted = { process: ServiceProcess; queries: () => Promise<number>; stop: () => Promise<void> };

/** The service process, able to say how many statements it has sent (loadtest/queryCounter.mjs). */
async function startCounted(dbUrl: string, nodeArgs: string[], env: Record<string, string>): Promise<Counted> {
  let waiting: ((n: number) => void) | undefined;
  const proc = await startServiceProcess(dbUrl, {
    nodeArgs,
    env,
    onStdoutLine: (line) => {
      const m = /^queries (\d+)$/.exec(line);
      if (m) waiting?.(Number(m[1]));
    },
  });
  return {
    process: proc,
    queries: () =>
      new Promise<number>((resolve) => {
        waiting = resolve;
        proc.child.kill('SIGUSR2');
      }),
    stop: async () => {
      proc.child.kill('SIGTERM');
      await proc.exited;
    },
  };
}

/** `/healthz`, then the target, each for the duration; the target's figures with the ratio. */
/**
 * `/healthz`, then the target, each for the duration, `ROUNDS` times: the figures of the round
 * with the median ratio (the machine is shared: one round can be unlucky), and every ratio.
 */
async function measure(service: Counted, t: Target) {
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(await measureOnce(service, t));
  const sorted = [...rounds].sort((x, y) => x.ratio_to_healthz - y.ratio_to_healthz);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  const out = { ...median, ratios: rounds.map((r) => r.ratio_to_healthz), p99s_ms: rounds.map((r) => r.p99_ms) };
  console.error(`${t.name}: ${out.req_per_s}/s p99 ${out.p99_ms} ms (healthz ${out.healthz_req_per_s}/s, ${out.ratio_to_healthz}×; ratios ${out.ratios.join(', ')}), ${out.queries_per_request} queries`);
  return out;
}

async function measureOnce(service: Counted, t: Target) {
  const base = service.process.base;
  await settle(service);
  // /healthz sends no statement: what the service sends meanwhile is its background work
  // (sweeper, lease renewals), taken off the target's count.
  const h0 = await service.queries();
  const t0 = performance.now();
  const health = await cannon(base, { name: 'healthz', path: '/healthz' }, CONNECTIONS, DURATION);
  const q0 = await service.queries();
  const backgroundPerMs = (q0 - h0) / (performance.now() - t0);
  const t1 = performance.now();
  const cpu0 = processCpu(service.process.child.pid!);
  const pg0 = postgresCpu();
  const r = await cannon(base, t, CONNECTIONS, DURATION);
  const cpu = processCpu(service.process.child.pid!) - cpu0;
  const pgCpu = postgresCpu() - pg0;
  const queries = (await service.queries()) - q0 - backgroundPerMs * (performance.now() - t1);
  return {
    path: t.path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '{id}'),
    ...r,
    healthz_req_per_s: health.req_per_s,
    healthz_p99_ms: health.p99_ms,
    ratio_to_healthz: Number((r.req_per_s / health.req_per_s).toFixed(2)),
    server_cpu_us_per_request: Math.round((cpu * 1e6) / r.requests),
    // Every postgres process of the machine (other databases' too): approximate, and unknown
    // (null) when processes that worked ended during the run.
    postgres_cpu_us_per_request: pgCpu >= 0 ? Math.round((pgCpu * 1e6) / r.requests) : null,
    queries_per_request: Number(Math.max(0, queries / r.requests).toFixed(2)),
  };
}

/**
 * Waits until the previous run's backlog is gone, so it is not charged to the next: requests
 * whose clients left still wait for a database connection, which /healthz does not show, so
 * this waits for the service to stop sending statements (its background work aside) too.
 */
async function settle(service: Counted): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const t0 = performance.now();
    await fetch(`${service.process.base}/healthz`);
    const q0 = await service.queries();
    await new Promise((r) => setTimeout(r, 300));
    if (performance.now() - t0 < 400 && (await service.queries()) - q0 < 5) break;
  }
}

async function cannon(base: string, t: Target, connections: number, duration: number): Promise<Run> {
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  const token = t.token;
  const result = await autocannon({
    url: `${base}${t.path}`,
    connections,
    duration,
    ...(typeof token === 'string' ? { headers: auth(token) } : {}),
    ...(typeof token === 'function'
      ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...req.headers, ...auth(token()) } }) }] }
      : {}),
  });
  return {
    req_per_s: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    non_2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    requests: result.requests.total,
  };
}

/** Two players and a classical game between them with 20 moves played over REST; White to move. */
async function setupActiveGame(base: string): Promise<{ gameId: string; token: string }> {
  const tag = `r${process.pid % 100000}_${Date.now() % 100000}`;
  const white = await postData(base, '/v1/auth/signup', { email: `w${tag}@example.com`, password: 'benchmark1', username: `w${tag}` });
  const black = await postData(base, '/v1/auth/signup', { email: `b${tag}@example.com`, password: 'benchmark1', username: `b${tag}` });
  const tokens = [white.session.access_token, black.session.access_token];
  const game = await postData(
    base,
    '/v1/games',
    { type: 'challenge', opponent_id: black.user.id, time_control: 'classical', initial_time: 3600, increment: 0, color: 'white' },
    tokens[0],
  );
  await postData(base, `/v1/games/${game.id}/accept`, {}, tokens[1]);
  for (let ply = 0; ply < 20; ply++) {
    const uci = LINE[ply];
    await postData(base, `/v1/games/${game.id}/moves`, { from: uci.slice(0, 2), to: uci.slice(2, 4) }, tokens[ply % 2]);
  }
  return { gameId: game.id, token: tokens[0] };
}

async function signupMany(base: string, n: number): Promise<string[]> {
  // Consonants only: no digit or vowel can spell a word the offensive-name rule refuses.
  const CONSONANTS = 'bcdfghjkmnpqrstvwxz';
  const spell = (x: number) => {
    let out = '';
    do {
      out += CONSONANTS[x % CONSONANTS.length];
      x = Math.floor(x / CONSONANTS.length);
    } while (x > 0);
    return out;
  };
  const tag = `rl${spell(Date.now() % 1_000_000)}`;
  const tokens: string[] = [];
  for (let i = 0; i < n; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, n - i) }, (_, j) =>
        postData(base, '/v1/auth/signup', { email: `${tag}_${i + j}@example.com`, password: 'benchmark1', username: `${tag}_${spell(i + j)}` }),
      ),
    );
    tokens.push(...batch.map((d) => d.session.access_token as string));
  }
  return tokens;
}

/** The player with the most games, and one with a typical number (the median). */
async function pickPlayers(url: string): Promise<{ busiest: string; typical: string }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const busiest = await c.query(`SELECT id FROM users ORDER BY games_played DESC LIMIT 1`);
    const typical = await c.query(
      `SELECT id FROM users WHERE games_played > 0 ORDER BY games_played OFFSET (SELECT count(*) / 2 FROM users WHERE games_played > 0) LIMIT 1`,
    );
    return { busiest: busiest.rows[0].id, typical: typical.rows[0].id };
  } finally {
    await c.end();
  }
}

await main();
process.exit(0);
