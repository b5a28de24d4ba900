/**
 * `npm run bench:profile`: where the service's time goes per move under the bench, by area.
 *
 *   npm run bench:profile -- [--games 1000] [--window 30] [--bots 2] [--interval-us 1000] [--computer 50 [--computer-level 8]]
 *   npm run bench:profile -- --cpuprofile DIR/CPU…cpuprofile --bench-report DIR/bench.json   # again, from a run's files
 *
 * Runs `npm run bench` at one fixed load (`--start N --max N`: one step, its settling window,
 * then the measured window) with the service under `--cpu-prof`, reads the bench's JSON report
 * (moves in the window, the service's CPU from /proc, the chess.js loop's µs per move) and the
 * service's profile (its main thread, tid 0, of the pid the bench reports), and prints one JSON
 * report: the window's moves, the service's CPU (the process's and its main thread's, from /proc)
 * and, per area (loadtest/cpuProfile.ts says how a sample is attributed: database client,
 * sockets, chess, services, GC, native/other), the share of the main thread's busy samples and
 * µs per move; the 15 functions with the most self time; the same by package or directory of ours.
 *
 * With `--computer N` the bench plays N games against the computer beside the human ones; the
 * moves counted are still the human games', so an area's µs per move then carries the computer
 * games' share too (run it with and without to tell them apart).
 *
 * Only the measured window counts: the bench reports it on the machine's monotonic clock, which
 * is the profile's, and the samples are cut to it (the signups, joins, settling and the drain at
 * SIGTERM are left out). A sample stands for wall time, also time the thread spent waiting for a
 * CPU (the report gives that wait, from schedstat), so on a shared machine the samples add up to
 * more than the CPU: an area's µs per move is its share of the busy samples times the main
 * thread's CPU per move, which assumes the wait falls on the areas as their work does. The
 * process's CPU is more than the main thread's by V8's GC helper threads, libuv's pool and the tsx
 * loader's thread, which the profile does not see. The service exits through its drain path at
 * the bench's SIGTERM (process.exit), which is when Node writes the profile. The profile and the
 * bench's report stay in a temporary directory (the report says which) for Chrome DevTools or a
 * second reading.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AREAS, attribute, type CpuProfile } from './cpuProfile.ts';
import { arg } from './args.ts';

const o = {
  games: arg('games', 1000),
  windowS: arg('window', 30),
  bots: arg('bots', 2),
  intervalUs: arg('interval-us', 1000),
  computer: arg('computer', 0),
  computerLevel: arg('computer-level', 8),
};
const root = path.resolve(import.meta.dirname, '..');

/** Runs the bench with the service profiled; resolves with the profile's and the report's paths. */
async function runBench(): Promise<{ profilePath: string; reportPath: string }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chess-profile-'));
  const nodeArgs = [process.env.BENCH_SERVER_NODE_ARGS ?? '', '--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${o.intervalUs}`];
  const args = ['--start', o.games, '--step', o.games, '--max', o.games, '--window', o.windowS, '--bots', o.bots, '--computer', o.computer, '--computer-level', o.computerLevel].map(String);
  const bench = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'loadtest/bench.ts'), ...args], {
    cwd: root,
    env: { ...process.env, BENCH_SERVER_NODE_ARGS: nodeArgs.join(' ').trim() },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  bench.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => bench.once('exit', resolve));
  if (code !== 0) throw new Error(`the bench exited with ${code}`);
  const reportPath = path.join(dir, 'bench.json');
  writeFileSync(reportPath, stdout);
  const pid = JSON.parse(stdout).server_pid;
  // Node names a profile CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; the main thread is 0.
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile') && f.split('.')[3] === String(pid) && f.split('.')[4] === '0');
  if (!file) throw new Error(`no profile of the service's main thread (pid ${pid}) in ${dir}: did it exit through process.exit?`);
  return { profilePath: path.join(dir, file), reportPath };
}

const round = (n: number, digits = 0) => Number(n.toFixed(digits));

async function main() {
  const given = arg('cpuprofile');
  const { profilePath, reportPath } = given ? { profilePath: given, reportPath: arg('bench-report')! } : await runBench();
  const bench = JSON.parse(readFileSync(reportPath, 'utf8'));
  const step = bench.ramp.steps[0];
  const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile;
  const b = attribute(profile, { root, from: step.monotonic_us.from, to: step.monotonic_us.to });
  const moves: number = step.moves;
  // The samples count wall time, also while the thread waited for a CPU on this shared machine:
  // the shares are theirs, the µs are the main thread's CPU (/proc) cut in those shares.
  const main: { cpu_s: number; runqueue_wait_s: number } | undefined = step.server_main_thread;
  const cpuMs = main ? main.cpu_s * 1000 : b.busy_ms;
  const share = (ms: number) => ms / b.busy_ms;
  const percent = (ms: number) => round(share(ms) * 100, 1);
  const perMove = (ms: number) => (moves ? round((share(ms) * cpuMs * 1000) / moves) : null);
  const baseline: number = bench.baseline_chessjs_loop_us_per_move;
  const report = {
    benchmark: "where the service's main thread spends its CPU per move, at a fixed load of the bench",
    node: process.version,
    settings: { ...o, bench: bench.settings },
    profile: profilePath,
    window_s: round((step.monotonic_us.to - step.monotonic_us.from) / 1e6, 1),
    games: step.games,
    moves,
    moves_per_s: step.moves_per_s,
    ack_ms: step.ack_ms,
    process_cpu_s: round((step.server_cpu_us_per_move * moves) / 1e6, 2),
    process_cpu_us_per_move: step.server_cpu_us_per_move,
    main_thread_cpu_s: main ? main.cpu_s : null,
    main_thread_cpu_us_per_move: main && moves ? round((main.cpu_s * 1e6) / moves) : null,
    main_thread_runqueue_wait_s: main ? main.runqueue_wait_s : null,
    threads_cpu_s: step.server_threads_cpu_s ?? null,
    sampled_busy_s: round(b.busy_ms / 1000, 2),
    sampled_idle_s: round(b.idle_ms / 1000, 2),
    samples: b.samples,
    areas: Object.fromEntries(AREAS.map((a) => [a, { percent: percent(b.areas[a]), us_per_move: perMove(b.areas[a]) }])),
    top_functions: b.functions.slice(0, 15).map((f) => ({ ...f, self_ms: round(f.self_ms), percent: percent(f.self_ms), us_per_move: perMove(f.self_ms) })),
    owners: Object.fromEntries(
      Object.entries(b.owners)
        .sort((x, y) => y[1] - x[1])
        .slice(0, 25)
        .map(([owner, ms]) => [owner, { percent: percent(ms), us_per_move: perMove(ms) }]),
    ),
    baseline_chessjs_loop_us_per_move: baseline,
    ratio_main_thread_cpu_to_chessjs: moves ? round((cpuMs * 1000) / moves / baseline, 2) : null,
    ratio_chess_area_to_chessjs: moves ? round(perMove(b.areas.chess)! / baseline, 2) : null,
  };
  console.log(JSON.stringify(report, null, 2));
}

await main();
