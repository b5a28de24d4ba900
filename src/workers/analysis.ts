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
  const pollMs = d.pollMs ?? 1000;
  const searchTimeoutMs = Math.max(1000, Math.floor(d.lockMs / 2));
  let stopped = false;
  let searched = 0;
  const wakers = new Set<() => void>();
  const engines: Array<UciEngine | undefined> = [];

  const kick = () => {
    for (const wake of [...wakers]) wake();
  };

  /** Resolves after `pollMs`, on a kick, or when stopping (at once if already stopping). */
  const idle = () =>
    new Promise<void>((resolve) => {
      // A claim that was in flight when stop() kicked comes back here with no waker to find.
      if (stopped) return resolve();
      let timer: TimerHandle | undefined;
      const wake = () => {
        wakers.delete(wake);
        d.clock.clearTimeout(timer);
        resolve();
      };
      wakers.add(wake);
      timer = d.clock.setTimeout(wake, pollMs);
    });

  async function engineOf(slot: number): Promise<UciEngine> {
    const current = engines[slot];
    if (current?.alive) return current;
    const engine = await UciEngine.start(d.command, { answerTimeoutMs: searchTimeoutMs, clock: d.clock });
    engines[slot] = engine;
    // An engine started while stopping would outlive the service.
    if (stopped) {
      await engine.quit();
      throw new Stopping();
    }
    return engine;
  }

  async function loop(slot: number): Promise<void> {
    const worker = `${d.node}#${slot}`;
    while (!stopped) {
      let job: repo.ClaimedAnalysis | undefined;
      try {
        job = await repo.claimAnalysis(d.pool, { now: d.clock.now(), lockMs: d.lockMs, worker, depth: d.depth });
      } catch (err) {
        d.log.warn({ err }, 'analysis claim failed');
      }
      if (!job) {
        await idle();
        continue;
      }
      await run(slot, job);
    }
  }

  async function run(slot: number, job: repo.ClaimedAnalysis): Promise<void> {
    const log = d.log.child({ gameId: job.gameId, attempt: job.attempt });
    try {
      const replay = replayGame(await listMoves(d.pool, job.gameId));
      const engine = await engineOf(slot);
      const evals = await analyse(engine, job, replay);
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
    } catch (error) {
      const failure = error instanceof EngineFailure && !stopped ? error : undefined;
      if (failure) {
        d.observe?.engineFailed?.(failure.kind);
        log.warn({ err: failure.message }, 'analysis engine failed; replacing it and retrying the job');
        engines[slot] = undefined;
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
      if (!stopped) d.observe?.finished?.('retry');
    }
  }

  /**
   * Searches the positions not yet found, storing each finding while the engine works on the
   * next. Undefined when the claim was lost (another worker has the job).
   */
  async function analyse(engine: UciEngine, job: repo.ClaimedAnalysis, replay: Replay): Promise<PositionEval[] | undefined> {
    const evals = [...job.evals];
    // Findings are written one batch at a time, beside the searching: while a write is in
    // flight, the next findings gather for the one after it.
    let unsaved: PositionEval[] = [];
    let writing: Promise<void> | undefined;
    let lost = false;
    const save = () => {
      if (writing || lost || unsaved.length === 0) return;
      const found = unsaved;
      unsaved = [];
      writing = repo
        .recordProgress(d.pool, { gameId: job.gameId, attempt: job.attempt, now: d.clock.now(), lockMs: d.lockMs, found })
        .then((held) => {
          if (!held) lost = true;
        })
        .finally(() => {
          writing = undefined;
        });
    };
    const flush = async () => {
      while (writing || (unsaved.length && !lost)) {
        save();
        await writing;
      }
    };
    try {
      await engine.newGame();
      for (let i = evals.length; i < replay.fens.length; i++) {
        if (stopped) throw new Stopping();
        if (lost) return undefined;
        const fen = replay.fens[i];
        let found: PositionEval;
        const known = settledScore(fen);
        if (known) found = { score: known, best: null };
        else {
          // The engine's real time, for the metrics; the worker's deadlines are on the clock.
          const started = performance.now();
          const r = await engine.search(START_FEN, replay.uci.slice(0, i), d.depth);
          searched++;
          d.observe?.searched?.(performance.now() - started);
          found = { score: whiteScore(r.score, sideToMove(fen)), best: r.bestMove };
        }
        evals.push(found);
        unsaved.push(found);
        save();
      }
      await flush();
      return lost ? undefined : evals;
    } catch (error) {
      // A failed search still keeps what was found before it.
      await flush().catch(() => {});
      throw error;
    }
  }

  const loops = Array.from({ length: d.workers }, (_, slot) => loop(slot));

  return {
    kick,
    get searched() {
      return searched;
    },
    enginePids: () => engines.filter((e): e is UciEngine => !!e?.alive).map((e) => e.pid!),
    stop: async () => {
      stopped = true;
      kick();
      // Quitting an engine ends its search; its worker then gives the job back.
      await Promise.all(engines.map((e) => e?.quit()));
      await Promise.all(loops);
      await Promise.all(engines.map((e) => e?.kill()));
    },
  };
}
