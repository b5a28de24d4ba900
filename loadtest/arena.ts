/**
 * Benchmark: a 1,000-player arena (DESIGN 2.10) against real PostgreSQL. Bots join over REST,
 * hear their pairings on the realtime channel (`tournament_pairing` on their `user:` channels,
 * 50 channels per socket) and play at once over REST: 1. e4 e5, then one side resigns (a coin).
 *
 *   arena      the tournament runs for --minutes (TOURNAMENT_MIN_MINUTES=1 on the server);
 *   baseline   the same bots, in the same run, play the same games for as long through
 *              challenges between fixed pairs (challenge, accept, e4, e5, resign): the server's
 *              cost of a game without any tournament around it.
 *
 * Reports the pairing latency (a player's wait from the end of their game — its resignation
 * answered — to their next `tournament_pairing`) p50/p90/p99/max, games per second, the
 * standings update cost (the actor's count step per game counted, and the `standings` messages
 * that followed), the tournament actor's own time (its steps' wall time per second of arena:
 * a bound on its share of a core) from the server's /metrics, and the server's and PostgreSQL's
 * CPU per game in both stages, from /proc. Prints one JSON report.
 *
 *   npx tsx loadtest/arena.ts [--players 1000] [--minutes 2] [--baseline-seconds 60]
 *
 * DATABASE_URL names the PostgreSQL server (a fresh database is created and dropped).
 */
import '../src/polyfills.ts';
import { appendFileSync } from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import WebSocket from 'ws';
import { countEnded, EMPTY_RECORD, type EndedGame } from '../src/domain/arena.ts';
import { pairArena, type ArenaPlayer } from '../src/domain/arenaPairing.ts';
import { createDatabase } from '../test/support/database.ts';
import { requestJson, startServiceProcess } from '../test/support/process.ts';
import { postgresCpu, processCpu } from './cpu.ts';
import { percentiles } from '../test/support/percentiles.ts';
import { arg } from './args.ts';

const PLAYERS = arg('players', 1000);
const MINUTES = arg('minutes', 2);
const BASELINE_SECONDS = arg('baseline-seconds', 60);
const CHANNELS_PER_SOCKET = 50;
const JOIN_LEAD_MS = arg('join-lead-seconds', 60) * 1000;

type Bot = { id: string; token: string };

/** A POST as a well-behaved client sends it: again after Retry-After while the answer is 503. */
async function post(base: string, path: string, body: unknown, token?: string) {
  for (let attempt = 0; ; attempt++) {
    const answer = await requestJson(base, 'POST', path, body, token);
    if (answer.status !== 503 || attempt === 30) return answer;
    retried503++;
    await sleep(1000 * Number(answer.headers.get('retry-after') ?? 1));
  }
}
let retried503 = 0;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

async function main() {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const db = await createDatabase(serverUrl);
  const warnings = { count: 0, samples: [] as string[] };
  const { child: server, port, base, exited } = await startServiceProcess(db.url, {
    env: { TOURNAMENT_MIN_MINUTES: '1', FIRST_MOVE_SECONDS: '30' },
    onStdoutLine: (line) => {
      warnings.count++;
      if (warnings.samples.length < 3) warnings.samples.push(line.slice(0, 300));
      if (process.env.ARENA_LOG) appendFileSync(process.env.ARENA_LOG, `${line}\n`);
    },
  });
  const api = `${base}/v1`;
  try {
    const pure = pureCosts(PLAYERS);
    const bots = await signupMany(api, PLAYERS);
    const arena = await runArena(api, port, server.pid!, bots, db.url);
    const baseline = await runBaseline(api, server.pid!, bots, BASELINE_SECONDS);
    console.log(
      JSON.stringify(
        {
          benchmark: `a ${PLAYERS}-player arena (bots: e4 e5, then a coin decides who resigns), real PostgreSQL`,
          node: process.version,
          cpus: os.cpus().length,
          load_average: os.loadavg().map((l) => round(l, 2)),
          actor_pure_cpu_us: pure,
          arena,
          baseline_challenges: baseline,
          server_cpu_us_per_game_arena_minus_baseline: arena.server_cpu_us_per_game - baseline.server_cpu_us_per_game,
          requests_retried_after_503: retried503,
          server_warnings: warnings.count,
          server_warning_samples: warnings.samples,
        },
        null,
        2,
      ),
    );
  } finally {
    server.kill('SIGTERM');
    await exited;
    await db.drop();
  }
}

/** The arena: every bot joins, plays whatever it is paired into at once, until the end. */
async function runArena(api: string, port: number, pid: number, bots: Bot[], dbUrl: string) {
  const creator = bots[0];
  const lastEnd = new Map<string, number>();
  const latencies: number[] = [];
  const games = new Set<string>();
  let ended = 0;
  let errors = 0;
  let endsAt = Infinity;
  const standings = { messages: 0, bytes: 0 };
  const tokenOf = new Map(bots.map((b) => [b.id, b.token]));

  const playGame = async (gameId: string, white: string, black: string) => {
    const move = (token: string, from: string, to: string) => post(api, `/games/${gameId}/moves`, { from, to }, token);
    const steps = [await move(tokenOf.get(white)!, 'e2', 'e4'), await move(tokenOf.get(black)!, 'e7', 'e5')];
    const loser = Math.random() < 0.5 ? white : black;
    const resigned = await post(api, `/games/${gameId}/resign`, {}, tokenOf.get(loser));
    if ([...steps, resigned].some((r) => r.status !== 200)) errors++;
    const at = performance.now();
    lastEnd.set(white, at);
    lastEnd.set(black, at);
    ended++;
  };

  // Sockets first: every bot hears its pairings from the first round on.
  const sockets: WebSocket[] = [];
  for (let i = 0; i < bots.length; i += CHANNELS_PER_SOCKET) {
    const group = bots.slice(i, i + CHANNELS_PER_SOCKET);
    const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/realtime`);
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    let subscribed = 0;
    const ready = new Promise<void>((resolve) => {
      ws.on('message', (data) => {
        const m = JSON.parse(String(data));
        if (m.type === 'subscribed' && ++subscribed === group.length) resolve();
        if (m.type === 'standings') {
          standings.messages++;
          standings.bytes += String(data).length;
        }
        if (m.type !== 'tournament_pairing') return;
        const player = m.channel.slice('user:'.length);
        const now = performance.now();
        const previous = lastEnd.get(player);
        if (previous !== undefined) latencies.push(now - previous);
        lastEnd.delete(player);
        if (m.color === 'white' && !games.has(m.game_id)) {
          games.add(m.game_id);
          void playGame(m.game_id, player, m.opponent.id).catch(() => errors++);
        }
      });
    });
    for (const b of group) ws.send(JSON.stringify({ type: 'subscribe', channel: `user:${b.id}`, token: b.token }));
    await ready;
    sockets.push(ws);
  }

  const t = (await post(api, '/tournaments', {
    name: 'Benchmark Arena', time_control: 'blitz', initial_time: 180, increment: 0, rated: true,
    // Far enough ahead for every bot to join first: the measured arena starts full.
    starts_at: new Date(Date.now() + JOIN_LEAD_MS).toISOString(), duration_minutes: MINUTES,
  }, creator.token)).body.data;
  endsAt = Date.parse(t.ends_at);
  // One socket follows the tournament's own channel (the standings messages).
  const follower = sockets[0];
  follower.send(JSON.stringify({ type: 'subscribe', channel: `tournament:${t.id}`, token: creator.token }));
  for (let i = 0; i < bots.length; i += 50) {
    await Promise.all(bots.slice(i, i + 50).map((b) => post(api, `/tournaments/${t.id}/join`, {}, b.token)));
  }
  const joinedBeforeStart = Date.now() < Date.parse(t.starts_at);
  const metrics0 = await scrape(api);
  while (Date.now() < Date.parse(t.starts_at)) await sleep(20);
  const cpu0 = processCpu(pid);
  const pg0 = postgresCpu();
  const t0 = performance.now();
  while (Date.now() < endsAt) await sleep(200);
  // The last round's games end; the tournament finishes after them.
  for (;;) {
    const status = (await requestJson(api, 'GET', `/tournaments/${t.id}`)).body.data.status;
    if (status === 'finished' || Date.now() > endsAt + 60_000) break;
    await sleep(200);
  }
  const wall = (performance.now() - t0) / 1000;
  const cpuS = processCpu(pid) - cpu0;
  const pgS = postgresCpu() - pg0;
  const metrics1 = await scrape(api);
  for (const ws of sockets) ws.close();
  const final = (await requestJson(api, 'GET', `/tournaments/${t.id}`)).body.data;
  const serverLatencies = await pairingLatencyInDatabase(dbUrl, t.id);
  const delta = (name: string) => (metrics1.get(name) ?? 0) - (metrics0.get(name) ?? 0);
  const counted = delta('chess_tournament_games_counted_total');
  const stepSeconds = (phase: string) => delta(`chess_tournament_step_seconds_sum{phase="${phase}"}`);
  const steps = (phase: string) => delta(`chess_tournament_step_seconds_count{phase="${phase}"}`);
  const actorSeconds = stepSeconds('count') + stepSeconds('pair') + stepSeconds('finish');
  return {
    players: bots.length,
    minutes: MINUTES,
    all_joined_before_the_start: joinedBeforeStart,
    wall_s: round(wall, 1),
    status: final.status,
    games_paired: games.size,
    games_ended_by_bots: ended,
    games_counted: counted,
    games_per_s: round(ended / wall, 1),
    bot_request_errors: errors,
    pairing_latency_ms: { ...percentiles(latencies, 1), n: latencies.length },
    pairing_latency_in_database_ms: { ...percentiles(serverLatencies, 1), n: serverLatencies.length },
    rounds: steps('pair'),
    pair_step_ms_mean: round((1000 * stepSeconds('pair')) / Math.max(1, steps('pair'))),
    count_step_ms_mean: round((1000 * stepSeconds('count')) / Math.max(1, steps('count'))),
    standings_update_us_per_counted_game: Math.round((1e6 * stepSeconds('count')) / Math.max(1, counted)),
    standings_messages: standings.messages,
    standings_message_bytes_mean: Math.round(standings.bytes / Math.max(1, standings.messages)),
    actor_step_wall_ms_per_s: round((1000 * actorSeconds) / wall),
    actor_step_wall_us_per_game: Math.round((1e6 * actorSeconds) / Math.max(1, counted)),
    server_cpu_pct_of_a_core: round((100 * cpuS) / wall),
    server_cpu_us_per_game: Math.round((1e6 * cpuS) / Math.max(1, ended)),
    postgres_cpu_us_per_game_machine_wide: Math.round((1e6 * pgS) / Math.max(1, ended)),
    standings_total: final.standings_total,
    top: final.standings.slice(0, 3).map((s: any) => ({ score: s.score, games: s.games, streak: s.streak, performance: s.performance })),
  };
}

/**
 * The same latency as the service itself recorded it: from a player's game ending (committed) to
 * their next pairing (committed), before any notification is on its way.
 */
async function pairingLatencyInDatabase(url: string, tournamentId: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      // Each player's ends and pairings in time order: a pairing right after an end is a wait.
      `WITH ev AS (
         SELECT p.user_id, g.finished_at AS at, 'end' AS kind FROM games g, unnest(ARRAY[g.white_id, g.black_id]) AS p(user_id)
          WHERE g.tournament_id = $1 AND g.finished_at IS NOT NULL
         UNION ALL
         SELECT p.user_id, t.paired_at, 'pair' FROM tournament_games t, unnest(ARRAY[t.white_id, t.black_id]) AS p(user_id)
          WHERE t.tournament_id = $1)
       SELECT extract(epoch FROM at - prev_at) * 1000 AS ms
         FROM (SELECT kind, at, lag(at) OVER w AS prev_at, lag(kind) OVER w AS prev_kind
                 FROM ev WINDOW w AS (PARTITION BY user_id ORDER BY at, kind)) x
        WHERE kind = 'pair' AND prev_kind = 'end'`,
      [tournamentId],
    );
    return rows.map((r) => Number(r.ms));
  } finally {
    await client.end();
  }
}

/** The baseline: fixed pairs play the same games through challenges, back to back, for `seconds`. */
async function runBaseline(api: string, pid: number, bots: Bot[], seconds: number) {
  const until = performance.now() + seconds * 1000;
  let ended = 0;
  let errors = 0;
  const cpu0 = processCpu(pid);
  const pg0 = postgresCpu();
  const t0 = performance.now();
  const pairs = Array.from({ length: Math.floor(bots.length / 2) }, (_, i) => [bots[2 * i], bots[2 * i + 1]] as const);
  await Promise.all(
    pairs.map(async ([white, black]) => {
      while (performance.now() < until) {
        const created = await post(api, '/games', { type: 'challenge', opponent_id: black.id, time_control: 'blitz', initial_time: 180, increment: 0, color: 'white' }, white.token);
        if (created.status !== 201) {
          errors++;
          await sleep(200);
          continue;
        }
        const id = created.body.data.id;
        const answers = [
          await post(api, `/games/${id}/accept`, {}, black.token),
          await post(api, `/games/${id}/moves`, { from: 'e2', to: 'e4' }, white.token),
          await post(api, `/games/${id}/moves`, { from: 'e7', to: 'e5' }, black.token),
          await post(api, `/games/${id}/resign`, {}, (Math.random() < 0.5 ? white : black).token),
        ];
        if (answers.some((a) => a.status !== 200)) errors++;
        ended++;
      }
    }),
  );
  const wall = (performance.now() - t0) / 1000;
  const cpuS = processCpu(pid) - cpu0;
  const pgS = postgresCpu() - pg0;
  return {
    seconds: round(wall, 1),
    games: ended,
    games_per_s: round(ended / wall, 1),
    request_errors: errors,
    server_cpu_pct_of_a_core: round((100 * cpuS) / wall),
    server_cpu_us_per_game: Math.round((1e6 * cpuS) / Math.max(1, ended)),
    postgres_cpu_us_per_game_machine_wide: Math.round((1e6 * pgS) / Math.max(1, ended)),
  };
}

/**
 * What the actor's own logic costs in CPU, apart from its I/O: one round's pairing of every
 * player (each with a last opponent), and counting half as many ended games into their records.
 */
function pureCosts(players: number) {
  const waiting: ArenaPlayer[] = Array.from({ length: players }, (_, i) => ({
    userId: `p${i}`, score: (i * 7) % 40, rating: 800 + ((i * 7919) % 2000), lastOpponentId: `p${i ^ 1}`, colorBalance: (i % 3) - 1, waitingSince: i,
  }));
  const records = new Map(waiting.map((p) => [p.userId, EMPTY_RECORD]));
  const ended: EndedGame[] = Array.from({ length: Math.floor(players / 2) }, (_, i) => ({
    gameId: `g${i}`, whiteId: `p${2 * i}`, blackId: `p${2 * i + 1}`, winner: i % 3 === 0 ? null : i % 3 === 1 ? 'white' : 'black',
    whiteRating: 1500, blackRating: 1500, endedAt: i, aborted: null,
  }));
  const time = (work: () => unknown) => {
    for (let i = 0; i < 3; i++) work(); // warm-up
    const rounds = 20;
    const t0 = process.cpuUsage();
    for (let i = 0; i < rounds; i++) work();
    const used = process.cpuUsage(t0);
    return Math.round((used.user + used.system) / rounds);
  };
  return {
    pair_round_of_all_players: time(() => pairArena(waiting, () => true)),
    count_games_of_a_round: time(() => countEnded(records, ended)),
  };
}

/** The server's /metrics as name{labels} → value (this machine may read it without a token). */
async function scrape(api: string): Promise<Map<string, number>> {
  const text = await (await fetch(api.replace(/\/v1$/, '/metrics'))).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}

// Digits read as letters to the offensive-word check; names spelled without vowels or digits spell nothing.
const CONSONANTS = 'bcdfghjkmnpqrstvwxz';
const consonants = (n: number): string => (n < CONSONANTS.length ? '' : consonants(Math.floor(n / CONSONANTS.length))) + CONSONANTS[n % CONSONANTS.length];
async function signupMany(api: string, count: number): Promise<Bot[]> {
  const out: Bot[] = [];
  for (let i = 0; i < count; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - i) }, async (_, j) => {
        const name = `arena_${consonants(process.pid)}_${consonants(i + j)}`;
        const res = await post(api, '/auth/signup', { email: `${name}@example.com`, password: 'benchmark1', username: name });
        if (res.status !== 201) throw new Error(`signup: ${JSON.stringify(res.body)}`);
        return { id: res.body.data.user.id, token: res.body.data.session.access_token };
      }),
    );
    out.push(...batch);
  }
  return out;
}

await main();
process.exit(0);
