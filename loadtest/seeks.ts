/**
 * Benchmark: REST seeks into one matchmaking pool against real PostgreSQL. Stages fire seeks at
 * a paced rate (open loop: each seek leaves on schedule, whatever the earlier ones are doing),
 * then one burst fires a batch at once (the pool actor's capacity). Reports seeks per second,
 * the time-to-pair distribution, the server's CPU per seek, and as a same-run baseline what the
 * pure pairing function costs per seek. Prints one JSON report.
 *
 *   npx tsx loadtest/seeks.ts [--users 200] [--rates 50,100,200,400] [--burst 400] [--spread 0]
 *
 * `--users` seekers per paced stage (fresh ones: a paired player is busy in their game);
 * `--spread` the standard deviation of the seekers' ratings (0: everyone 1500, so every second
 * seek pairs at once; > 0 lets the rating window and the 1 s pass do part of the pairing).
 * Time to pair: for the seeker whose POST pairs, its POST's latency; for the seeker who waited,
 * from its POST until the pairing (the partner's answer naming its game, or for pairs made by
 * the pool's pass, the first 250 ms poll of GET /games/{id} that sees the game active).
 *
 * The server runs as a child process (its CPU is its own, read from /proc), started the way
 * loadtest/moves.ts starts it; DATABASE_URL names the PostgreSQL server (a fresh database is
 * created and dropped).
 */
import '../src/polyfills.ts';
import os from 'node:os';
import pg from 'pg';
import { findPartner, type Seek, type SeekColor } from '../src/domain/pairing.ts';
import { requestJson, startServiceProcess } from '../test/support/process.ts';

const post = (base: string, p: string, body: unknown, token?: string) => requestJson(base, 'POST', p, body, token);
const get = (base: string, p: string, token: string) => requestJson(base, 'GET', p, undefined, token);
import { postgresCpu, processCpu } from './cpu.ts';
import { createDatabase } from '../test/support/database.ts';
import { percentiles, type Percentiles } from '../test/support/percentiles.ts';
import { arg } from './args.ts';

const USERS = arg('users', 200);
const RATES = arg('rates', '50,100,200,400').split(',').map(Number);
const BURST = arg('burst', 400);
const SPREAD = arg('spread', 0);
/** One pool for the whole run: a pool's actor is the unit being measured. */
const POOL = { time_control: 'blitz', initial_time: 300, increment: 0, rated: true } as const;

type Player = { id: string; token: string };
type SeekRecord = {
  player: Player;
  sentAt: number;
  answeredAt?: number;
  status?: number;
  outcome?: 'active' | 'pending';
  /** Pending: the seek's id; active: the game's id (the waiting seek's id). */
  id?: string;
  pairedAt?: number;
  error?: string;
};

type StageReport = {
  stage: string;
  target_seeks_per_s: number | null;
  seeks: number;
  errors: number;
  wall_s: number;
  seeks_per_s: number;
  paired_on_arrival: number;
  paired_while_waiting: number;
  unpaired: number;
  peak_waiting: number;
  time_to_pair_ms: Percentiles;
  time_to_pair_on_arrival_ms: Percentiles;
  time_to_pair_waiting_ms: Percentiles;
  server_cpu_us_per_seek: number;
  postgres_cpu_us_per_seek: number;
  /** This process (HTTP clients): it shares the machine's cores with the server and PostgreSQL. */
  load_generator_cpu_us_per_seek: number;
};

async function main() {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const db = await createDatabase(serverUrl);
  const { child: server, base, exited } = await startServiceProcess(db.url, { onStdoutLine: countWarning });
  const sql = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    const stagePlayers = [];
    for (const _ of RATES) stagePlayers.push(await signupMany(base, USERS));
    const burstPlayers = await signupMany(base, BURST);
    const everyone = [...stagePlayers.flat(), ...burstPlayers];
    const ratings = await assignRatings(sql, everyone);

    const stages: StageReport[] = [];
    for (const [i, rate] of RATES.entries()) stages.push(await runStage(base, server.pid!, `paced ${rate}/s`, stagePlayers[i], rate));
    stages.push(await runStage(base, server.pid!, `burst of ${BURST}`, burstPlayers, null));

    const peakQueue = Math.max(1, ...stages.map((s) => s.peak_waiting));
    const sustained = stages
      .filter((s) => s.target_seeks_per_s !== null && s.errors === 0 && s.seeks_per_s >= 0.95 * s.target_seeks_per_s)
      .reduce((m, s) => Math.max(m, s.seeks_per_s), 0);
    const burst = stages[stages.length - 1];
    const serverUs = burst.server_cpu_us_per_seek;
    const baseline = {
      find_partner_us_per_seek_peak_queue: findPartnerCost(ratings, peakQueue),
      find_partner_us_per_seek_queue_of_users: findPartnerCost(ratings, USERS),
      peak_queue: peakQueue,
    };
    console.log(
      JSON.stringify(
        {
          benchmark: 'REST seeks into one matchmaking pool (real PostgreSQL)',
          node: process.version,
          cpus: os.cpus().length,
          pool: POOL,
          rating_spread: SPREAD,
          users_per_stage: USERS,
          sustained_seeks_per_s: sustained,
          burst_seeks_per_s: burst.seeks_per_s,
          stages,
          baseline,
          ratio_server_cpu_to_find_partner: Number((serverUs / baseline.find_partner_us_per_seek_peak_queue).toFixed(0)),
          server_warnings: serverWarnings.count,
          server_warning_samples: serverWarnings.samples,
        },
        null,
        2,
      ),
    );
  } finally {
    await sql.end();
    server.kill('SIGTERM');
    await exited;
    await db.drop();
  }
}

/** One stage: `players` seek once each, at `rate` a second (or all at once), until all are paired. */
async function runStage(base: string, pid: number, name: string, players: Player[], rate: number | null): Promise<StageReport> {
  const cpu0 = processCpu(pid);
  const pg0 = postgresCpu();
  const own0 = process.cpuUsage();
  const t0 = performance.now();
  const records: SeekRecord[] = players.map((player) => ({ player, sentAt: 0 }));
  const byGame = new Map<string, SeekRecord>();
  const startedAt = new Map<string, number>();
  const inFlight: Promise<void>[] = [];
  const fire = (r: SeekRecord) =>
    inFlight.push(
      (async () => {
        r.sentAt = performance.now();
        const res = await post(base, '/v1/games', { type: 'matchmaking', ...POOL, color: 'random' }, r.player.token);
        r.answeredAt = performance.now();
        r.status = res.status;
        if (res.status !== 201) return void (r.error = JSON.stringify(res.body?.error ?? res.body));
        r.outcome = res.body.data.status === 'active' ? 'active' : 'pending';
        r.id = res.body.data.id;
        if (r.outcome === 'active') {
          r.pairedAt = r.answeredAt;
          const waiting = byGame.get(r.id!);
          if (waiting) waiting.pairedAt ??= r.answeredAt;
          else startedAt.set(r.id!, r.answeredAt); // the partner's own (pending) answer is still on its way
        } else {
          byGame.set(r.id!, r);
          r.pairedAt = startedAt.get(r.id!);
        }
      })(),
    );
  if (rate === null) {
    for (const r of records) fire(r);
  } else {
    // Open loop: seek i leaves at t0 + i / rate, however the earlier ones fare.
    for (let i = 0; i < records.length; ) {
      const now = performance.now();
      while (i < records.length && t0 + (i * 1000) / rate <= now) fire(records[i++]);
      if (i < records.length) await sleep(1);
    }
  }
  await Promise.all(inFlight);
  const answered = performance.now();
  // Those still waiting were left to the pool's pass (or have nobody left to meet): watch them.
  await watchPending(base, records, 15_000);
  const cpuS = processCpu(pid) - cpu0;
  const pgS = postgresCpu() - pg0;
  const own = process.cpuUsage(own0);
  const wallS = (answered - t0) / 1000;
  // Whoever is left (an odd one out, a rating nobody came near) must not wait into the next stage.
  for (const r of records) if (r.outcome === 'pending' && r.pairedAt === undefined) await post(base, `/v1/games/${r.id}/cancel`, {}, r.player.token);

  const ok = records.filter((r) => r.status === 201);
  const onArrival = ok.filter((r) => r.outcome === 'active');
  const waited = ok.filter((r) => r.outcome === 'pending' && r.pairedAt !== undefined);
  const ttp = (r: SeekRecord) => r.pairedAt! - r.sentAt;
  return {
    stage: name,
    target_seeks_per_s: rate,
    seeks: records.length,
    errors: records.length - ok.length,
    wall_s: round(wallS, 3),
    seeks_per_s: Math.round(records.length / wallS),
    paired_on_arrival: onArrival.length,
    paired_while_waiting: waited.length,
    unpaired: ok.filter((r) => r.pairedAt === undefined).length,
    peak_waiting: peakWaiting(ok),
    time_to_pair_ms: percentiles([...onArrival, ...waited].map(ttp), 1),
    time_to_pair_on_arrival_ms: percentiles(onArrival.map(ttp), 1),
    time_to_pair_waiting_ms: percentiles(waited.map(ttp), 1),
    server_cpu_us_per_seek: Math.round((cpuS * 1e6) / records.length),
    postgres_cpu_us_per_seek: Math.round((pgS * 1e6) / records.length),
    load_generator_cpu_us_per_seek: Math.round((own.user + own.system) / records.length),
  };
}

/** Polls GET /games/{id} every 250 ms for the seeks no partner's answer has named yet. */
async function watchPending(base: string, records: SeekRecord[], timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const open = records.filter((r) => r.outcome === 'pending' && r.pairedAt === undefined);
    if (open.length === 0 || performance.now() > until) return;
    await Promise.all(
      open.map(async (r) => {
        const res = await get(base, `/v1/games/${r.id}`, r.player.token);
        if (res.body?.data?.status === 'active') r.pairedAt ??= performance.now();
      }),
    );
    await sleep(250);
  }
}

/** The most seeks waiting at once (answered pending, not yet paired). */
function peakWaiting(records: SeekRecord[]): number {
  const edges: [number, number][] = [];
  for (const r of records) {
    if (r.outcome !== 'pending') continue;
    edges.push([r.answeredAt!, 1], [r.pairedAt ?? Infinity, -1]);
  }
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, (open += d));
  return peak;
}

/**
 * The baseline: what choosing a partner costs by itself, per seek, in µs: `findPartner` of a
 * newcomer over a queue of `queueSize` waiting seeks drawn from the run's own ratings.
 */
function findPartnerCost(ratings: number[], queueSize: number): number {
  const colors: SeekColor[] = ['white', 'black', 'random'];
  const now = Date.now();
  const queue: Seek[] = Array.from({ length: queueSize }, (_, i) => ({
    id: `w${i}`,
    userId: `u${i}`,
    rating: ratings[i % ratings.length],
    color: colors[i % 3],
    since: now - (i % 10) * 1000,
  }));
  const newcomers: Seek[] = ratings.map((rating, i) => ({ id: `n${i}`, userId: `n${i}`, rating, color: 'random', since: now }));
  let sink = 0;
  const rounds = Math.max(3, Math.ceil(200_000 / (newcomers.length * Math.max(1, queueSize))));
  for (const n of newcomers) if (findPartner(n, queue, now)) sink++; // warm-up
  const t0 = process.hrtime.bigint();
  for (let round = 0; round < rounds; round++) for (const n of newcomers) if (findPartner(n, queue, now)) sink++;
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / (rounds * newcomers.length);
  if (sink < 0) console.log(sink);
  return round(us, 3);
}

/** Ratings for the run: 1500 each, or normal(1500, spread) rounded, written to user_ratings. */
async function assignRatings(sql: pg.Pool, players: Player[]): Promise<number[]> {
  const ratings = players.map(() => (SPREAD > 0 ? Math.round(1500 + SPREAD * gaussian()) : 1500));
  if (SPREAD > 0) {
    await sql.query(
      `INSERT INTO user_ratings (user_id, category, rating, rd, volatility)
       SELECT id, $3, rating, 80, 0.06 FROM unnest($1::uuid[], $2::float8[]) AS t(id, rating)`,
      [players.map((p) => p.id), ratings, POOL.time_control],
    );
  }
  return ratings;
}

function gaussian(): number {
  return Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());
}

const round = (n: number, digits: number) => Number(n.toFixed(digits));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));



let signups = 0;
// Digits read as letters to the offensive-word check; names spelled without vowels or digits spell nothing.
const CONSONANTS = 'bcdfghjkmnpqrstvwxz';
const consonants = (n: number): string => (n < CONSONANTS.length ? '' : consonants(Math.floor(n / CONSONANTS.length))) + CONSONANTS[n % CONSONANTS.length];
async function signupMany(base: string, count: number): Promise<Player[]> {
  const out: Player[] = [];
  for (let i = 0; i < count; i += 20) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(20, count - i) }, async () => {
        const name = `seek_${consonants(process.pid)}_${consonants(signups++)}`;
        const res = await post(base, '/v1/auth/signup', { email: `${name}@example.com`, password: 'benchmark1', username: name });
        if (res.status !== 201) throw new Error(`signup: ${JSON.stringify(res.body)}`);
        return { id: res.body.data.user.id, token: res.body.data.session.access_token };
      }),
    );
    out.push(...batch);
  }
  return out;
}

const serverWarnings = { count: 0, samples: [] as string[] };
/** The service logs at warn level: every line it prints is a warning worth reporting. */
function countWarning(line: string): void {
  serverWarnings.count++;
  if (serverWarnings.samples.length < 3) serverWarnings.samples.push(line.slice(0, 300));
}




await main();
process.exit(0);
