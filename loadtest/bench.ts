/**
 * `npm run bench`: how many live blitz games one service process holds at a human pace.
 *
 *   npm run bench -- [--start 500] [--step 500] [--max 10000] [--window 30] [--bots 2]
 *                    [--think-min 1] [--think-max 5] [--p99-limit 50] [--rss-limit-mb 2048]
 *                    [--commit-window 5] [--computer 50] [--computer-level 8] [--computer-engines 1]
 *   npm run bench -- --soak-minutes 30 --games 2000        # memory over time at a fixed load (with --trace-gc)
 *
 * The service runs as one child process (`npm start`'s, against DATABASE_URL's server, a fresh
 * database; without it the embedded one). Bot processes (loadtest/bench/bot.ts) play both seats
 * of their games through `@colyseus/sdk`: each player thinks 1–5 s a move. The ramp adds games
 * step by step; after each step settles, one window measures move acknowledgement (send →
 * `move:ok`), the server's CPU, RSS and event-loop delay (its own, from its /metrics: the bots
 * report theirs apart), PostgreSQL's CPU and transactions, and the moves each commit carried. It
 * stops at the first window whose ack p99 passes the limit or whose RSS passes the cap (or when
 * something refuses to grow: the report says what), and prints one JSON report. The baseline,
 * measured in the same run before the service starts: a tight chess.js loop over the same kind
 * of moves. BENCH_SERVER_NODE_ARGS passes flags to the service's Node (e.g. `--trace-gc`),
 * BENCH_SERVER_LOG=file keeps its stdout. `--commit-window ms` runs the service with that
 * MOVE_COMMIT_WINDOW_MS (else its own default); the report gives the window the service ran
 * with (`commit_window_ms`, from its /metrics). Each window reports its bounds on the machine's
 * monotonic clock (`monotonic_us`), the service's main thread's CPU and its wait for a CPU
 * (`server_main_thread`) and its threads' CPU by name (`server_threads_cpu_s`); the report gives
 * the service's pid (`server_pid`). `npm run bench:profile` (loadtest/profile.ts) cuts the
 * service's `--cpu-prof` profile to the window with them.
 *
 * `--computer N` adds N games against the service's computer at `--computer-level L` (1–8, default
 * 8) beside the human games, for the whole run: the bots sign up one person a game (each user may
 * play COMPUTER_GAMES_PER_USER at once) who plays random legal moves at the same pace, and start
 * another when one ends. `--computer-engines K` runs the service with COMPUTER_ENGINES=K (else its
 * default). Each window then reports them apart (`computer`: games, the engine's moves and its
 * reply time as the person saw it, the person's acks, games finished and how) and the engines'
 * CPU (`computer_engines_cpu_s`, the service's stockfish children, not in `server_cpu_percent`);
 * the human figures (`games`, `ack_ms`, …) stay the human games' alone, though the service's CPU
 * and the database's include the computer games' share.
 */
import '../src/polyfills.ts';
import { fork, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createDatabase } from '../test/support/database.ts';
import { startServiceProcess } from '../test/support/process.ts';
import type { BotMessage, BotWindow, ParentMessage } from './bench/bot.ts';
import { childrenCpu, postgresCpu, processCpu, threadSched, threadsCpu } from './cpu.ts';
import { chessJsLoop, randomGame } from './lines.ts';
import { percentile } from '../test/support/percentiles.ts';
import { arg } from './args.ts';

const o = {
  start: arg('start', 500),
  step: arg('step', 500),
  max: arg('max', 10_000),
  windowS: arg('window', 30),
  settleS: arg('settle', 5),
  bots: arg('bots', 2),
  thinkMin: arg('think-min', 1),
  thinkMax: arg('think-max', 5),
  plies: arg('plies', 120),
  p99LimitMs: arg('p99-limit', 50),
  rssLimitMb: arg('rss-limit-mb', 2048),
  soakMinutes: arg('soak-minutes', 0),
  soakGames: arg('games', 2000),
  /** MOVE_COMMIT_WINDOW_MS for the service; undefined: the service's own (its default, or this environment's). */
  commitWindowMs: arg('commit-window'),
  /** Games against the computer beside the human games, at this level. */
  computer: arg('computer', 0),
  computerLevel: arg('computer-level', 8),
  /** COMPUTER_ENGINES for the service; undefined: the service's own. */
  computerEngines: arg('computer-engines'),
};

type Bot = { child: ChildProcess; next: (type: BotMessage['type']) => Promise<BotMessage> };

function startBot(index: number, base: string): Bot {
  const child = fork(path.join(import.meta.dirname, 'bench/bot.ts'), [], {
    execArgv: ['--import', 'tsx'],
    env: {
      ...process.env,
      BENCH_BASE: base,
      BENCH_BOT_INDEX: String(index),
      BENCH_THINK_MIN: String(o.thinkMin),
      BENCH_THINK_MAX: String(o.thinkMax),
      BENCH_PLIES: String(o.plies),
      BENCH_COMPUTER_LEVEL: String(o.computerLevel),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<string, (m: BotMessage) => void>();
  child.on('message', (m: BotMessage) => {
    if (m.type === 'fatal') throw new Error(`bot ${index}: ${m.error}`);
    waiting.get(m.type)?.(m);
    waiting.delete(m.type);
  });
  return { child, next: (type) => new Promise((resolve) => waiting.set(type, resolve)) };
}

async function ask<T extends BotMessage['type']>(bot: Bot, m: ParentMessage, answer: T): Promise<Extract<BotMessage, { type: T }>> {
  const reply = bot.next(answer);
  bot.child.send(m);
  return (await reply) as Extract<BotMessage, { type: T }>;
}

/**
 * The machine's monotonic clock in µs, which is the clock of a `--cpu-prof` profile's startTime
 * and samples: loadtest/profile.ts cuts the service's profile to a window with it.
 */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const round2 = (n: number) => Number(n.toFixed(2));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The heap after each full (mark-compact) collection, from --trace-gc, in the order they came. */
const fullGcs: { at: number; mb: number }[] = [];

/** `… Mark-Compact 450.1 (480.2) -> 210.3 (470.1) MB, …` (--trace-gc) → 210.3. */
function afterFullGc(line: string): number | undefined {
  const m = line.match(/Mark-Compact[^>]*-> ([\d.]+) \(/);
  return m ? Number(m[1]) : undefined;
}

/** The acks' median, p95, p99 and maximum (NaN, null in JSON, without acks). */
function ackPercentiles(values: number[]) {
  const at = (p: number) => round2(percentile(values, p));
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: at(1) };
}

async function main() {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  // The baseline first, on a quiet machine: measured beside the bots it would look slower.
  const sequences = Array.from({ length: 100 }, (_, i) => randomGame(5000 + i, 60));
  const baseline = Number(chessJsLoop(sequences).toFixed(1));
  const db = await createDatabase(serverUrl);
  const stats = new pg.Client({ connectionString: db.url });
  await stats.connect();
  // BENCH_SERVER_LOG=file keeps the server's stdout (its log, or --trace-gc's lines) in a file.
  const log = process.env.BENCH_SERVER_LOG ? createWriteStream(process.env.BENCH_SERVER_LOG) : undefined;
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // A soak reads the heap left after each full collection from --trace-gc: the live data, where
  // a sample of the heap at any moment also holds whatever garbage has not been collected yet.
  if (o.soakMinutes > 0 && !nodeArgs.includes('--trace-gc')) nodeArgs.push('--trace-gc');
  const { child: server, base } = await startServiceProcess(db.url, {
    nodeArgs,
    env: {
      ...(o.commitWindowMs === undefined ? {} : { MOVE_COMMIT_WINDOW_MS: o.commitWindowMs }),
      ...(o.computerEngines === undefined ? {} : { COMPUTER_ENGINES: o.computerEngines }),
    },
    onStdoutLine:
      log || o.soakMinutes > 0
        ? (line) => {
            log?.write(`${line}\n`);
            const after = afterFullGc(line);
            if (after !== undefined) fullGcs.push({ at: performance.now(), mb: after });
          }
        : undefined,
  });
  const pid = server.pid!;
  // The service started and idle (no user, no game): what a game's share of RSS is measured above.
  const idleRss = rssMb(pid);
  const bots = Array.from({ length: o.bots }, (_, i) => startBot(i, base));
  const transactions = async () =>
    Number((await stats.query<{ n: string }>('SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0].n);
  const metrics = async () => {
    const text = await (await fetch(`${base}/metrics`)).text();
    const value = (name: string) => Number(text.match(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm'))?.[1] ?? NaN);
    /** A histogram's cumulative bucket counts, by upper bound in seconds. */
    value.buckets = (name: string) =>
      [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\S+)$`, 'gm'))].map((m) => ({ le: Number(m[1]), n: Number(m[2]) }));
    return value;
  };

  /** Spreads `n` more games (human, or against the computer) over the bots; resolves with what failed. */
  const grow = async (n: number, type: 'add' | 'add-computer' = 'add') => {
    const share = (i: number) => Math.floor(n / o.bots) + (i < n % o.bots ? 1 : 0);
    const added = await Promise.all(bots.map((b, i) => ask(b, { type, games: share(i) }, 'added')));
    return { failed: added.reduce((s, a) => s + a.failed, 0), error: added.find((a) => a.error)?.error };
  };
  /** One measuring window: everything the bots and the server did in `seconds`. */
  const measure = async (seconds: number) => {
    await Promise.all(bots.map((b) => ask(b, { type: 'window' }, 'window')));
    await metrics(); // resets the event-loop histogram
    const cpu0 = processCpu(pid);
    const main0 = threadSched(pid);
    const threads0 = threadsCpu(pid);
    const engines0 = enginesCpu(pid);
    const pg0 = postgresCpu();
    const tx0 = await transactions();
    const m0 = await metrics();
    const t0 = performance.now();
    const from = monotonicUs();
    await sleep(seconds * 1000);
    const windows = await Promise.all(bots.map((b) => ask(b, { type: 'window' }, 'window')));
    const wallS = (performance.now() - t0) / 1000;
    const to = monotonicUs();
    const m1 = await metrics();
    const cpuS = processCpu(pid) - cpu0;
    const main1 = threadSched(pid);
    const threads1 = threadsCpu(pid);
    const engines1 = enginesCpu(pid);
    const pgS = postgresCpu() - pg0;
    const tx = (await transactions()) - tx0;
    return {
      ...summarize(windows, { wallS, cpuS, pgS, tx, m0, m1 }),
      server_main_thread: { cpu_s: round2(main1.cpuS - main0.cpuS), runqueue_wait_s: round2(main1.waitS - main0.waitS) },
      server_threads_cpu_s: Object.fromEntries(Object.entries(threads1).map(([name, s]) => [name, round2(s - (threads0[name] ?? 0))])),
      monotonic_us: { from, to },
      // A run without the computer reports what it always did.
      ...(o.computer === 0
        ? {}
        : {
            computer: summarizeComputer(windows, wallS),
            computer_engines_cpu_s: round2([...engines1].reduce((sum, [p, s]) => sum + s - (engines0.get(p) ?? 0), 0)),
            computer_engine_processes: engines1.size,
          }),
    };
  };
  const summarize = (
    windows: BotWindow[],
    s: { wallS: number; cpuS: number; pgS: number; tx: number; m0: Metrics; m1: Metrics },
  ) => {
    const acks = windows.flatMap((w) => w.acks);
    const moves = windows.reduce((n, w) => n + w.moves, 0);
    const errors: Record<string, number> = {};
    for (const w of windows) for (const [k, v] of Object.entries(w.errors)) errors[k] = (errors[k] ?? 0) + v;
    const rss = rssMb(pid);
    const batches = s.m1('chess_move_batches_total') - s.m0('chess_move_batches_total');
    const commits = s.m1('chess_move_commits_total') - s.m0('chess_move_commits_total');
    const written = s.m1('chess_moves_written_total') - s.m0('chess_moves_written_total');
    // Games still playing at the window's end (the service may have given some up meanwhile).
    const playing = windows.reduce((n, w) => n + w.liveGames, 0);
    return {
      games: playing,
      sockets: playing * 2,
      server_live_games: s.m1('chess_live_games'),
      moves,
      moves_per_s: Math.round(moves / s.wallS),
      ack_ms: ackPercentiles(acks),
      server_cpu_percent: Math.round((s.cpuS / s.wallS) * 100),
      server_cpu_us_per_move: moves ? Math.round((s.cpuS * 1e6) / moves) : null,
      postgres_cpu_percent: Math.round((s.pgS / s.wallS) * 100),
      db_transactions_per_move: moves ? Number((s.tx / moves).toFixed(2)) : null,
      moves_per_db_batch: batches ? Number((written / batches).toFixed(1)) : null,
      // A batch of snapshot and lean moves is two statements, each its own commit.
      moves_per_commit: commits ? Number((written / commits).toFixed(2)) : null,
      db_batch_ms: bucketQuantiles(s.m0.buckets('chess_move_batch_seconds'), s.m1.buckets('chess_move_batch_seconds')),
      lease_renewal_ms: bucketQuantiles(s.m0.buckets('chess_lease_renewal_seconds'), s.m1.buckets('chess_lease_renewal_seconds')),
      rss_mb: Math.round(rss),
      rss_kb_per_game: playing ? Math.round((rss * 1024) / playing) : null,
      idle_rss_mb: Math.round(idleRss),
      rss_kb_per_game_above_idle: playing ? Math.round(((rss - idleRss) * 1024) / playing) : null,
      heap_used_mb: Math.round(s.m1('nodejs_heap_size_used_bytes') / 1048576),
      server_event_loop_delay_ms: {
        p50: loopDelayMs(s.m1('nodejs_eventloop_lag_p50_seconds')),
        p99: loopDelayMs(s.m1('nodejs_eventloop_lag_p99_seconds')),
        max: loopDelayMs(s.m1('nodejs_eventloop_lag_max_seconds')),
      },
      games_finished: windows.reduce((n, w) => n + w.gamesFinished, 0),
      errors,
      bots: windows.map((w) => ({
        cpu_percent: Math.round((w.botCpuS / s.wallS) * 100),
        loop_delay_ms: { p50: Number(w.botLoopP50Ms.toFixed(1)), p99: Number(w.botLoopP99Ms.toFixed(1)) },
      })),
    };
  };

  const report: Record<string, unknown> = {
    benchmark: 'live blitz games at a human pace in one service process',
    node: process.version,
    cpus: os.cpus().length,
    fd_limit: fdLimit(pid),
    server_pid: pid,
    settings: o,
    commit_window_ms: ms((await metrics())('chess_move_commit_window_seconds')),
  };
  try {
    if (o.computer > 0) {
      const started = await grow(o.computer, 'add-computer');
      if (started.failed) throw new Error(`${started.failed} of ${o.computer} games against the computer could not start (${started.error})`);
    }
    if (o.soakMinutes > 0) {
      report.soak = await soak(grow, measure, pid);
    } else {
      report.ramp = await ramp(grow, measure);
    }
    report.baseline_chessjs_loop_us_per_move = baseline;
    decorate(report);
    console.log(JSON.stringify(report, null, 2));
  } finally {
    await Promise.all(bots.map((b) => new Promise((r) => (b.child.once('exit', r), b.child.send({ type: 'stop' })))));
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    await stats.end();
    await db.drop();
  }
}

/** The service's engine processes (src/workers/engine.ts: the stockfish package's script, or STOCKFISH_PATH's binary). */
const enginesCpu = (pid: number) => childrenCpu(pid, /stockfish/i);

/** What the persons playing the computer saw in a window, all bots together. */
function summarizeComputer(windows: BotWindow[], wallS: number) {
  const c = windows.map((w) => w.computer);
  const sum = (key: 'engineMoves' | 'gamesFinished' | 'gamesStarted' | 'liveGames') => c.reduce((n, w) => n + w[key], 0);
  const merge = (key: 'endings' | 'errors') => {
    const all: Record<string, number> = {};
    for (const w of c) for (const [k, v] of Object.entries(w[key])) all[k] = (all[k] ?? 0) + v;
    return all;
  };
  const acks = c.flatMap((w) => w.acks);
  return {
    level: o.computerLevel,
    games: sum('liveGames'),
    engine_moves: sum('engineMoves'),
    engine_moves_per_s: Number((sum('engineMoves') / wallS).toFixed(1)),
    engine_reply_ms: ackPercentiles(c.flatMap((w) => w.engineReplies)),
    person_moves: acks.length,
    person_ack_ms: ackPercentiles(acks),
    games_finished: sum('gamesFinished'),
    games_started: sum('gamesStarted'),
    endings: merge('endings'),
    errors: merge('errors'),
  };
}

type Metrics = ((name: string) => number) & { buckets: (name: string) => { le: number; n: number }[] };

/**
 * p50/p99 of what a histogram counted between two scrapes, as the upper bounds of the buckets
 * they fall in (ms): "≤ 10" means between the previous bound and 10.
 */
function bucketQuantiles(before: { le: number; n: number }[], after: { le: number; n: number }[]) {
  const counts = after.map((b, i) => ({ le: b.le, n: b.n - (before[i]?.n ?? 0) }));
  const total = counts.at(-1)?.n ?? 0;
  if (!total) return null;
  const at = (p: number) => {
    const le = counts.find((b) => b.n >= p * total)!.le;
    return Number.isFinite(le) ? `≤ ${le * 1000}` : `> ${counts.at(-2)!.le * 1000}`;
  };
  return { count: total, p50: at(0.5), p99: at(0.99) };
}

type Grow = (n: number) => Promise<{ failed: number; error?: string }>;
type Measure = (seconds: number) => Promise<Record<string, any>>;

/** Adds games step by step until a window fails a limit, or growing fails. */
async function ramp(grow: Grow, measure: Measure) {
  const steps: Record<string, any>[] = [];
  let stopped = `reached --max ${o.max}`;
  for (let target = o.start; target <= o.max; target += o.step) {
    const before = steps.at(-1)?.games ?? 0;
    const grown = await grow(target - before);
    await measure(o.settleS);
    const w = await measure(o.windowS);
    steps.push({ ...w, setup_failures: grown.failed || undefined });
    const computer = w.computer ? `; computer: ${w.computer.games} games, ${w.computer.engine_moves_per_s} moves/s, engines ${w.computer_engines_cpu_s} s CPU` : '';
    process.stderr.write(`bench: ${w.games} games, ${w.moves_per_s} moves/s, ack p99 ${w.ack_ms.p99} ms, server CPU ${w.server_cpu_percent} %, RSS ${w.rss_mb} MB${computer}\n`);
    if (grown.failed) {
      stopped = `could not add games at ${target}: ${grown.failed} failed (${grown.error})`;
      break;
    }
    if (w.games < target) {
      // Games the service gave up (a move write past its deadline) or that could not go on.
      stopped = `games lost: ${w.games} of ${target} still playing (${JSON.stringify(w.errors)})`;
      break;
    }
    if ((w.ack_ms.p99 ?? 0) > o.p99LimitMs) {
      stopped = `ack p99 ${w.ack_ms.p99} ms > ${o.p99LimitMs} ms at ${w.games} games`;
      break;
    }
    if (w.rss_mb > o.rssLimitMb) {
      stopped = `RSS ${w.rss_mb} MB > ${o.rssLimitMb} MB at ${w.games} games`;
      break;
    }
  }
  const passing = steps.filter((s) => (s.ack_ms.p99 ?? 0) <= o.p99LimitMs && s.rss_mb <= o.rssLimitMb && !s.setup_failures);
  return { stopped, largest_passing_games: passing.at(-1)?.games ?? 0, steps };
}

/** A fixed number of games for `--soak-minutes`: RSS and heap per minute, and their trend. */
async function soak(grow: Grow, measure: Measure, pid: number) {
  const grown = await grow(o.soakGames);
  await measure(o.settleS);
  const samples: Record<string, any>[] = [];
  for (let minute = 1; minute <= o.soakMinutes; minute++) {
    const start = performance.now();
    const w = await measure(60);
    // The lowest heap a full collection left in this minute (none may have run in it).
    const afterGc = fullGcs.filter((g) => g.at >= start).map((g) => g.mb);
    const liveMb = afterGc.length ? Math.round(Math.min(...afterGc)) : null;
    samples.push({
      minute, games: w.games, moves_per_s: w.moves_per_s, ack_p99_ms: w.ack_ms.p99, rss_mb: w.rss_mb, heap_used_mb: w.heap_used_mb,
      heap_after_full_gc_mb: liveMb, errors: w.errors, computer: w.computer,
    });
    process.stderr.write(`soak: minute ${minute}, RSS ${w.rss_mb} MB, heap ${w.heap_used_mb} MB, after full GC ${liveMb ?? '-'} MB, ack p99 ${w.ack_ms.p99} ms\n`);
  }
  // The trend after the first third (warm-up: the first games are still growing their move lists
  // then): least squares, MB per 10 minutes.
  const tail = samples.slice(Math.floor(samples.length / 3));
  return {
    games: o.soakGames,
    setup_failures: grown.failed,
    rss_mb_per_10_min: slope(tail, 'rss_mb'),
    heap_mb_per_10_min: slope(tail, 'heap_used_mb'),
    heap_after_full_gc_mb_per_10_min: slope(tail.filter((t) => t.heap_after_full_gc_mb !== null), 'heap_after_full_gc_mb'),
    full_gcs: fullGcs.length,
    samples,
    pid,
  };
}

function slope(samples: Record<string, any>[], key: string): number | null {
  if (samples.length < 2) return null;
  const xs = samples.map((s) => s.minute as number);
  const ys = samples.map((s) => s[key] as number);
  const mx = xs.reduce((a, b) => a + b) / xs.length;
  const my = ys.reduce((a, b) => a + b) / ys.length;
  const b = xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) / xs.reduce((s, x) => s + (x - mx) ** 2, 0);
  return Number((b * 10).toFixed(1));
}

/** The CPU per move against the chess.js loop, for every window. */
function decorate(report: Record<string, any>): void {
  const base = report.baseline_chessjs_loop_us_per_move as number;
  const windows = report.ramp?.steps ?? [];
  for (const w of windows) if (w.server_cpu_us_per_move) w.ratio_server_cpu_to_chessjs = Number((w.server_cpu_us_per_move / base).toFixed(2));
}

function fdLimit(pid: number): number {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
  return Number(line?.split(/\s+/)[3]);
}

const ms = (seconds: number) => (Number.isFinite(seconds) ? Number((seconds * 1000).toFixed(1)) : null);

/**
 * The service samples its event loop every 10 ms (src/http/ops.ts), and monitorEventLoopDelay
 * records the whole interval between two samples: an idle loop reads ~10 ms. Its delay is what
 * lies beyond the interval (a timer may fire a little early: never below 0).
 */
const SERVER_LOOP_SAMPLE_MS = 10;
const loopDelayMs = (seconds: number) => (Number.isFinite(seconds) ? Number(Math.max(0, seconds * 1000 - SERVER_LOOP_SAMPLE_MS).toFixed(1)) : null);

await main();
process.exit(0);
