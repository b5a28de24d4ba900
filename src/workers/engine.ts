// One chess engine in its own process, spoken to over UCI on its stdin and stdout. Stockfish is
// GPL-3: the service never loads it, it only talks to a separate program (by default the npm
// package's single-threaded lite WASM build under this Node, or a native binary at STOCKFISH_PATH).
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { systemClock, type Clock, type TimerHandle } from '../time.ts';

/** The program and arguments that start an engine. */
export type EngineCommand = { command: string; args: string[] };

/**
 * The engine to run: a native binary when `stockfishPath` names one (several times faster), else
 * the `stockfish` npm package's lite single-threaded build (it needs no native install; it
 * cannot run inside worker_threads, so it too gets a process of its own).
 */
export function engineCommand(stockfishPath?: string): EngineCommand {
  if (stockfishPath) return { command: stockfishPath, args: [] };
  const script = createRequire(import.meta.url).resolve('stockfish/bin/stockfish-19-lite-single.js');
  return { command: process.execPath, args: [script] };
}

/** An engine's score of a position, from the side to move's point of view (UCI's convention). */
export type UciScore = { cp: number } | { mate: number };

export type SearchResult = {
  score: UciScore;
  /** The engine's best move in UCI notation (`e2e4`, `e7e8q`); null in a position without moves. */
  bestMove: string | null;
  depth: number;
  /** Nodes searched (0 when the engine did not say). */
  nodes: number;
};

/** The engine died, or stopped answering and was killed. Its search is lost; the job is retried. */
export class EngineFailure extends Error {
  constructor(
    message: string,
    readonly kind: 'died' | 'hung',
  ) {
    super(message);
  }
}

type Waiter = { until: (line: string) => boolean; resolve: () => void; reject: (e: Error) => void; timer?: TimerHandle };

export type EngineOptions = {
  /** How long the engine may take to answer a command before it counts as hung. */
  answerTimeoutMs?: number;
  hashMb?: number;
  clock?: Clock;
  /**
   * Runs the engine only on CPU that nothing else wants: Linux's SCHED_IDLE (through util-linux's
   * `chrt`, where it is installed), else the lowest niceness, 19. A niced process still holds a
   * core for its time slice when the service wakes (Linux's EEVDF lets it run to parity), a
   * SCHED_IDLE one gives it up at once; both soak up an idle core whole. From its first search on:
   * it starts at the service's priority.
   */
  idle?: boolean;
};

const CHRT = '/usr/bin/chrt';

/**
 * Puts a process, every thread of it, under SCHED_IDLE with util-linux's `chrt`; where there is
 * none, or it may not (a sandbox refusing the call), its main thread (where the search runs) at
 * niceness 19.
 */
function idleScheduling(pid: number): void {
  if (existsSync(CHRT) && spawnSync(CHRT, ['--all-tasks', '--idle', '-p', '0', String(pid)], { stdio: 'ignore' }).status === 0) return;
  os.setPriority(pid, 19);
}

/**
 * One engine process. Commands go one at a time (the pool gives an engine to one job); a search
 * that brings no `bestmove` within its bound kills the process (SIGKILL: a hung or stopped
 * process ignores gentler signals) and rejects with EngineFailure('hung'). The engine also exits
 * by itself when its stdin closes, which is what happens to it if the service is killed.
 */
export class UciEngine {
  /** From the engine's `id name` line, e.g. "Stockfish 19 Lite WASM". */
  name = 'unknown engine';
  private buffer = '';
  private waiter: Waiter | undefined;
  private lastInfo: string | undefined;
  private exited = false;
  private readonly exit: Promise<void>;
  private readonly clock: Clock;
  private readonly answerTimeoutMs: number;

  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    options: EngineOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.answerTimeoutMs = options.answerTimeoutMs ?? 30_000;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.read(chunk));
    child.stderr.resume();
    // Writing to an engine that just died raises EPIPE here; its exit rejects the waiter instead.
    child.stdin.on('error', () => {});
    this.exit = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exited = true;
        this.fail(new EngineFailure(`engine exited (${signal ?? `code ${code}`})`, 'died'));
        resolve();
      });
      child.once('error', (err) => {
        this.exited = true;
        this.fail(new EngineFailure(`engine could not start: ${err.message}`, 'died'));
        resolve();
      });
    });
  }

  /** Starts an engine and waits until it is ready (`uciok`, options set, `readyok`). */
  static async start(command: EngineCommand, options: EngineOptions = {}): Promise<UciEngine> {
    const child = spawn(command.command, command.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const engine = new UciEngine(child, options);
    try {
      await engine.ask('uci', (line) => line === 'uciok');
      if (options.hashMb) engine.send(`setoption name Hash value ${options.hashMb}`);
      await engine.ask('isready', (line) => line === 'readyok');
      // Idle from its first search on, not before: its start (loading the WASM build, ~0.2 s of
      // CPU) under SCHED_IDLE on a busy machine took 57 s, past the answer timeout, so the engine
      // was killed and started again without end.
      if (options.idle && child.pid) idleScheduling(child.pid);
      return engine;
    } catch (error) {
      engine.kill();
      throw error;
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Forget what the last game taught the engine (its hash table). */
  async newGame(): Promise<void> {
    this.send('ucinewgame');
    await this.ask('isready', (line) => line === 'readyok');
  }

  /**
   * Searches the position after `moves` (UCI) from `fen` to `depth`. The moves, not just the
   * final FEN, go to the engine so that it sees repetitions.
   */
  async search(fen: string, moves: readonly string[], depth: number): Promise<SearchResult> {
    this.send(`position fen ${fen}${moves.length ? ` moves ${moves.join(' ')}` : ''}`);
    this.lastInfo = undefined;
    let bestLine = '';
    await this.ask(`go depth ${depth}`, (line) => {
      if (!line.startsWith('bestmove')) return false;
      bestLine = line;
      return true;
    });
    return parseSearch(this.lastInfo, bestLine);
  }

  /**
   * A move to play after `moves` (UCI) from `fen` at `skill` (UCI `Skill Level`, 0–20: below 20
   * the engine picks among its lines with a random error), searching until `movetimeMs` or
   * `depth`, whichever comes first. The moves go to the engine so that it sees repetitions. The
   * score is the search's own (its best line's, whatever the skill made it play); the best move
   * is null in a position without moves.
   */
  async play(fen: string, moves: readonly string[], o: { skill: number; movetimeMs: number; depth: number }): Promise<SearchResult> {
    this.send(`setoption name Skill Level value ${o.skill}`);
    this.send(`position fen ${fen}${moves.length ? ` moves ${moves.join(' ')}` : ''}`);
    this.lastInfo = undefined;
    let bestLine = '';
    await this.ask(`go movetime ${Math.max(1, Math.round(o.movetimeMs))} depth ${o.depth}`, (line) => {
      if (!line.startsWith('bestmove')) return false;
      bestLine = line;
      return true;
    });
    return parseSearch(this.lastInfo, bestLine);
  }

  /** Kills the process now (SIGKILL) and waits for it to be gone. */
  async kill(): Promise<void> {
    if (!this.exited) this.child.kill('SIGKILL');
    await this.exit;
  }

  /**
   * Asks the engine to quit, and kills it if it has not within `graceMs`. The grace is real time,
   * not the service clock's: it is for a real process (one stopped with SIGSTOP, say), and must
   * run out even when tests drive the service clock by hand.
   */
  async quit(graceMs = 1000): Promise<void> {
    if (this.exited) return;
    this.send('quit');
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exit;
    clearTimeout(timer);
  }

  private send(command: string): void {
    if (!this.exited) this.child.stdin.write(`${command}\n`);
  }

  private ask(command: string, until: (line: string) => boolean): Promise<void> {
    if (this.exited) return Promise.reject(new EngineFailure('engine is not running', 'died'));
    if (this.waiter) return Promise.reject(new Error('engine is busy'));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { until, resolve, reject };
      waiter.timer = this.clock.setTimeout(() => {
        this.fail(new EngineFailure(`no answer to "${command.split(' ')[0]}" within ${this.answerTimeoutMs} ms`, 'hung'));
        this.child.kill('SIGKILL');
      }, this.answerTimeoutMs);
      this.waiter = waiter;
      this.send(command);
    });
  }

  private fail(error: Error): void {
    const waiter = this.waiter;
    if (!waiter) return;
    this.waiter = undefined;
    this.clock.clearTimeout(waiter.timer);
    waiter.reject(error);
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline).trim();
      this.buffer = this.buffer.slice(newline + 1);
      if (line.startsWith('id name ')) this.name = line.slice('id name '.length);
      // Bound scores come from a failed aspiration window: the exact one follows.
      else if (line.startsWith('info ') && line.includes(' score ') && !line.includes('bound')) this.lastInfo = line;
      const waiter = this.waiter;
      if (waiter?.until(line)) {
        this.waiter = undefined;
        this.clock.clearTimeout(waiter.timer);
        waiter.resolve();
      }
    }
  }
}

/** The final `info … score …` line and the `bestmove` line of one search. */
export function parseSearch(info: string | undefined, bestLine: string): SearchResult {
  const words = (info ?? '').split(/\s+/);
  const at = (key: string) => {
    const i = words.indexOf(key);
    return i >= 0 ? words[i + 1] : undefined;
  };
  const scoreAt = words.indexOf('score');
  const kind = scoreAt >= 0 ? words[scoreAt + 1] : undefined;
  const value = scoreAt >= 0 ? Number(words[scoreAt + 2]) : Number.NaN;
  const score: UciScore = kind === 'mate' && Number.isFinite(value) ? { mate: value } : { cp: Number.isFinite(value) ? value : 0 };
  const best = bestLine.split(/\s+/)[1];
  return { score, bestMove: best && best !== '(none)' ? best : null, depth: Number(at('depth') ?? 0), nodes: Number(at('nodes') ?? 0) };
}
