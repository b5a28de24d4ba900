import * as repo from '../db/analysis.ts';
import { listMoves } from '../db/games.ts';
import type { Pool } from '../db/pool.ts';
import {
  START_FEN,
  buildAnalysis,
  replayGame,
  settledScore,
  sideToMove,
  whiteScore,
  type PositionEval,
  type Replay,
} from '../domain/gameAnalysis.ts';
import type { OpeningBook } from '../domain/openings.ts';
import type { Logger } from '../logger.ts';
import type { Clock, TimerHandle } from '../time.ts';
import { ProgressWriter } from './analysisProgress.ts';
import { EngineFailure, UciEngine, type EngineCommand } from './engine.ts';

/** Waits before retrying a job whose engine died or hung, by failures in a row (the last repeats). */
export const RETRY_DELAYS_MS = [0, 5_000, 30_000, 120_000, 600_000, 3_600_000];

export type AnalysisWorkerDeps = {
  pool: Pool;
  log: Logger;
  clock: Clock;
  command: EngineCommand;
  /** Engines, one job each (ANALYSIS_WORKERS). */
  workers: number;
  depth: number;
  /** This node's name in a claim (`locked_by`). */
  node: string;
  /**
   * How long a claim lasts without renewal; each searched position renews it. A node that dies
   * stops renewing, and after this its job is another worker's. A search longer than half of it
   * counts as a hung engine.
   */
  lockMs: number;
  /** How often an idle worker looks for work (a game ending on this node wakes it at once). */
  pollMs?: number;
  openings: () => OpeningBook;
  observe?: AnalysisObserver;
};

export type AnalysisObserver = {
  searched?: (durationMs: number) => void;
  finished?: (outcome: 'done' | 'retry' | 'lost') => void;
  engineFailed?: (kind: 'died' | 'hung') => void;
};

export type AnalysisWorkers = {
  /** Look for work now (a game just finished). */
  kick: () => void;
  /** Gives running jobs back to the queue, stops every engine and waits for them to exit. */
  stop: () => Promise<void>;
  /** The engines' process ids (tests check none outlives the service). */
  enginePids: () => number[];
  /** Positions this node's engines searched (tests: no game is analysed twice). */
  readonly searched: number;
};

class Stopping extends Error {}

/**
 * The analysis workers of one node (DESIGN 2.5): `workers` loops, each with its own engine
 * process, take jobs from the durable queue in PostgreSQL (`FOR UPDATE SKIP LOCKED` and a
 * claim renewed with every position, so two nodes never analyse one game at once and a dead
 * node's job is taken again), search every position of the game to `depth`, store each finding
 * as they go (the progress the API reports, and where a retried job resumes), and store the
 * analysis. An engine that dies or hangs is replaced and its job retried.
 */
export function startAnalysisWorkers(d: AnalysisWorkerDeps): AnalysisWorkers {
  const pool = new WorkerPool(d);
  pool.start();
  return {
    kick: () => pool.kick(),
    get searched() {
      return pool.searched;
    },
    enginePids: () => pool.enginePids(),
    stop: () => pool.stop(),
  };
}

/** The `workers` loops of one node, their engines (one per slot) and what wakes them. */
class WorkerPool {
  searched = 0;
  private stopped = false;
  private readonly pollMs: number;
  private readonly searchTimeoutMs: number;
  private readonly wakers = new Set<() => void>();
  private readonly engines: Array<UciEngine | undefined> = [];
  private loops: Promise<void>[] = [];

  constructor(private readonly d: AnalysisWorkerDeps) {
    this.pollMs = d.pollMs ?? 1000;
    this.searchTimeoutMs = Math.max(1000, Math.floor(d.lockMs / 2));
  }

  start(): void {
    this.loops = Array.from({ length: this.d.workers }, (_, slot) => this.loop(slot));
  }

  kick(): void {
    for (const wake of [...this.wakers]) wake();
  }

  enginePids(): number[] {
    return this.engines.filter((e): e is UciEngine => !!e?.alive).map((e) => e.pid!);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.kick();
    // Quitting an engine ends its search; its worker then gives the job back.
    await Promise.all(this.engines.map((e) => e?.quit()));
    await Promise.all(this.loops);
    await Promise.all(this.engines.map((e) => e?.kill()));
  }

  /** One worker: claims a job, runs it, and waits for work when there is none, until stopping. */
  private async loop(slot: number): Promise<void> {
    const worker = `${this.d.node}#${slot}`;
    while (!this.stopped) {
      let job: repo.ClaimedAnalysis | undefined;
      try {
        job = await repo.claimAnalysis(this.d.pool, { now: this.d.clock.now(), lockMs: this.d.lockMs, worker, depth: this.d.depth });
      } catch (err) {
        this.d.log.warn({ err }, 'analysis claim failed');
      }
      if (!job) {
        await this.idle();
        continue;
      }
      await this.run(slot, job);
    }
  }

  /** Resolves after `pollMs`, on a kick, or when stopping (at once if already stopping). */
  private idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      // A claim that was in flight when stop() kicked comes back here with no waker to find.
      if (this.stopped) return resolve();
      let timer: TimerHandle | undefined;
      const wake = () => {
        this.wakers.delete(wake);
        this.d.clock.clearTimeout(timer);
        resolve();
      };
      this.wakers.add(wake);
      timer = this.d.clock.setTimeout(wake, this.pollMs);
    });
  }

  /** The slot's engine, started anew when there is none or it died. */
  private async engineOf(slot: number): Promise<UciEngine> {
    const current = this.engines[slot];
    if (current?.alive) return current;
    const engine = await UciEngine.start(this.d.command, { answerTimeoutMs: this.searchTimeoutMs, clock: this.d.clock, idle: true });
    this.engines[slot] = engine;
    // An engine started while stopping would outlive the service.
    if (this.stopped) {
      await engine.quit();
      throw new Stopping();
    }
    return engine;
  }

  /** One job: every position searched and the analysis stored, or the job given back to retry. */
  private async run(slot: number, job: repo.ClaimedAnalysis): Promise<void> {
    const log = this.d.log.child({ gameId: job.gameId, attempt: job.attempt });
    try {
      await this.complete(slot, job, log);
    } catch (error) {
      await this.giveBack(slot, job, log, error);
    }
  }

  private async complete(slot: number, job: repo.ClaimedAnalysis, log: Logger): Promise<void> {
    const d = this.d;
    const replay = replayGame(await listMoves(d.pool, job.gameId));
    const engine = await this.engineOf(slot);
    const evals = await this.analyse(engine, job, replay);
    if (!evals) {
      d.observe?.finished?.('lost');
      log.info('analysis claim taken over by another worker');
      return;
    }
    const now = d.clock.now();
    const result = buildAnalysis({
      gameId: job.gameId,
      replay,
      evals,
      engine: engine.name,
      depth: d.depth,
      analyzedAt: new Date(now),
      opening: d.openings().classify(replay.fens),
    });
    const stored = await repo.completeAnalysis(d.pool, { gameId: job.gameId, attempt: job.attempt, now, engine: engine.name, result });
    d.observe?.finished?.(stored ? 'done' : 'lost');
  }

  /** A failed job goes back to the queue after its retry delay (at once when stopping); a failed engine is replaced. */
  private async giveBack(slot: number, job: repo.ClaimedAnalysis, log: Logger, error: unknown): Promise<void> {
    const d = this.d;
    const stopped = this.stopped;
    const failure = error instanceof EngineFailure && !stopped ? error : undefined;
    if (failure) {
      d.observe?.engineFailed?.(failure.kind);
      log.warn({ err: failure.message }, 'analysis engine failed; replacing it and retrying the job');
      this.engines[slot] = undefined;
    } else if (!stopped) {
      log.error({ err: error }, 'analysis failed; retrying the job');
    }
    const delay = stopped ? 0 : RETRY_DELAYS_MS[Math.min(job.failures, RETRY_DELAYS_MS.length - 1)];
    await repo
      .releaseAnalysis(d.pool, {
        gameId: job.gameId,
        attempt: job.attempt,
        availableAt: d.clock.now() + delay,
        error: stopped ? undefined : error instanceof Error ? error.message : String(error),
      })
      .catch((err) => log.warn({ err }, 'analysis release failed (the claim lapses instead)'));
    if (!this.stopped) d.observe?.finished?.('retry');
  }

  /**
   * Searches the positions not yet found, storing each finding while the engine works on the
   * next. Undefined when the claim was lost (another worker has the job).
   */
  private async analyse(engine: UciEngine, job: repo.ClaimedAnalysis, replay: Replay): Promise<PositionEval[] | undefined> {
    const evals = [...job.evals];
    const progress = new ProgressWriter(this.d, job);
    try {
      await engine.newGame();
      for (let i = evals.length; i < replay.fens.length; i++) {
        if (this.stopped) throw new Stopping();
        if (progress.lost) return undefined;
        const found = await this.evaluate(engine, replay, i);
        evals.push(found);
        progress.add(found);
      }
      await progress.flush();
      return progress.lost ? undefined : evals;
    } catch (error) {
      // A failed search still keeps what was found before it.
      await progress.flush().catch(() => {});
      throw error;
    }
  }

  /** Position `i` of the game: settled by the rules (mate, a dead draw), else searched to `depth`. */
  private async evaluate(engine: UciEngine, replay: Replay, i: number): Promise<PositionEval> {
    const fen = replay.fens[i];
    const known = settledScore(fen);
    if (known) return { score: known, best: null };
    // The engine's real time, for the metrics; the worker's deadlines are on the clock.
    const started = performance.now();
    const r = await engine.search(START_FEN, replay.uci.slice(0, i), this.d.depth);
    this.searched++;
    this.d.observe?.searched?.(performance.now() - started);
    return { score: whiteScore(r.score, sideToMove(fen)), best: r.bestMove };
  }
}
