import * as repo from '../db/analysis.ts';
import { findGame } from '../db/games.ts';
import type { AppContext } from '../context.ts';
import { parseId } from '../domain/ids.ts';
import type { GameAnalysis } from '../domain/gameAnalysis.ts';
import { AppError } from '../errors.ts';
import { bind } from './bind.ts';
import { visibleTo } from './games.ts';

/** An analysis not ready yet: where it stands (DESIGN 2.5's 202 answer). */
export type AnalysisPending = {
  game_id: string;
  status: 'queued' | 'running';
  progress: { done: number; total: number };
};

export type AnalysisAnswer = { ready: true; analysis: GameAnalysis } | { ready: false; pending: AnalysisPending; retryAfterSeconds: number };

/** What the analysis use case works with. */
export type AnalysisDeps = Pick<AppContext, 'pool' | 'clock'>;

/** The post-game analysis of a finished game, or where it stands; the analysing is src/workers/analysis.ts's. */
export async function getAnalysis(d: AnalysisDeps, userId: string, requestedId: string): Promise<AnalysisAnswer> {
  const gameId = parseId(requestedId);
  if (!gameId) throw new AppError('GAME_NOT_FOUND', 'Game not found');
  const game = visibleTo(await findGame(d.pool, gameId), userId);
  if (game.status === 'abandoned') throw new AppError('GAME_NOT_FINISHED', 'The game was aborted; aborted games are not analysed');
  if (game.status !== 'finished') throw new AppError('GAME_NOT_FINISHED', 'The game is not finished; it is analysed when it ends');
  const now = d.clock.now();
  let job = await repo.findAnalysis(d.pool, gameId);
  if (!job) {
    // Every finished game is queued as it ends; this only heals a row lost some other way.
    await repo.enqueueAnalysis(d.pool, gameId, now);
    job = await repo.findAnalysis(d.pool, gameId);
    if (!job) throw new AppError('GAME_NOT_FOUND', 'Game not found');
  }
  if (job.status === 'done') return { ready: true, analysis: job.result as GameAnalysis };
  // A claim that lapsed belongs to a worker that died: the job waits for another.
  const running = job.status === 'running' && job.lockedUntil !== null && job.lockedUntil.getTime() >= now;
  const waitMs = running ? 1000 : Math.max(1000, job.availableAt.getTime() - now);
  return {
    ready: false,
    pending: { game_id: gameId, status: running ? 'running' : 'queued', progress: { done: job.progressDone, total: job.progressTotal } },
    retryAfterSeconds: Math.ceil(waitMs / 1000),
  };
}

export const createAnalysisService = (d: AnalysisDeps) => bind(d, { getAnalysis });

export type AnalysisService = ReturnType<typeof createAnalysisService>;
