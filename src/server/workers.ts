// The background work of a process: the node watch (failover by lock), and once it serves, the
// analysis engines, the sweeper and the webhook deliveries. Each is started here with what it
// needs and stopped in the order the drain wants (src/server/shutdown.ts).
import type { Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import { countPendingAnalyses } from '../db/analysis.ts';
import type { Pool } from '../db/pool.ts';
import { countPendingDeliveries } from '../db/webhooks.ts';
import { loadOpeningBook } from '../domain/openings.ts';
import { nodeGone, nodeSeen, openGame, openTournament } from '../gateway/index.ts';
import { registerAnalysisMetrics, registerWebhookMetrics } from '../http/ops.ts';
import type { Logger } from '../logger.ts';
import type { Clock } from '../time.ts';
import type { Services } from '../services/index.ts';
import { tendTournaments } from '../services/tournamentSchedule.ts';
import { startAnalysisWorkers, type AnalysisWorkers } from '../workers/analysis.ts';
import { engineCommand } from '../workers/engine.ts';
import { startNodeWatch } from '../workers/nodeWatch.ts';
import { startSweeper, type Sweeper } from '../workers/sweeper.ts';
import { startWebhookDispatcher } from '../workers/webhooks.ts';
import { createSender } from '../workers/webhookSender.ts';

export type NodeWatchOptions = {
  config: Config;
  databaseUrl: string;
  pool: Pool;
  log: Logger;
  clock: Clock;
  /** This node's id (the matchmaker's process id). */
  nodeId: string;
  /** A dead node's leases were ended here: its games are free to be hosted again. */
  freed: () => void;
};

/**
 * With FAILOVER_DETECTION=lock, holds this node's lock and ends the leases of nodes found dead
 * (a crashed predecessor first); resolves once that is done, to the watch's stop.
 */
export async function watchNodes(o: NodeWatchOptions): Promise<(() => Promise<void>) | undefined> {
  if (o.config.failoverDetection !== 'lock') return undefined;
  const watch = await startNodeWatch({
    databaseUrl: o.databaseUrl,
    pool: o.pool,
    log: o.log.child({ component: 'nodes' }),
    clock: o.clock,
    id: o.nodeId,
    address: o.config.publicAddress,
    onGone: async (id, endedHere) => {
      await nodeGone(id, { dropListings: endedHere });
      if (endedHere) o.freed();
    },
    onSeen: nodeSeen,
  });
  return watch.stop;
}

export type WorkerOptions = {
  ctx: AppContext;
  services: Services;
  tournamentPool: Pool;
  nodeId: string;
  registry: Registry;
};

export type Workers = {
  analysis: AnalysisWorkers;
  sweeper: Sweeper;
  /** Stops the sweeper, then the webhook deliveries, then the engines (running analyses go back to the queue). */
  stop: () => Promise<void>;
};

/** Starts the analysis engines, the sweeper and the webhook deliveries of a serving node. */
export function startWorkers({ ctx, services, tournamentPool, nodeId, registry }: WorkerOptions): Workers {
  const { config, pool, log, clock } = ctx;
  const analysis = startAnalysisWorkers({
    pool,
    log: log.child({ component: 'analysis' }),
    clock,
    command: engineCommand(config.stockfishPath),
    workers: config.analysisWorkers,
    depth: config.analysisDepth,
    node: nodeId,
    lockMs: config.analysisLockMs,
    openings: loadOpeningBook,
    observe: registerAnalysisMetrics(registry, () => countPendingAnalyses(pool)),
  });
  // Arenas without an actor are started and finished on the sweepers' own pool.
  const schedule = { ...ctx, pool: tournamentPool };
  const sweeper = startSweeper({
    pool,
    log,
    clock,
    // The sweeper knows nobody holds these games' leases: a room listed on a node that does
    // not answer is a dead node's leftover.
    openGame: (gameId) => openGame(gameId, { orphaned: true }),
    openTournament,
    tendTournaments: () => tendTournaments(schedule),
    onExpired: services.games.pendingExpired,
  });
  const webhooks = startWebhookDispatcher({
    pool,
    log: log.child({ component: 'webhooks' }),
    clock,
    send: createSender({ allowPrivate: config.webhooksAllowPrivate, timeoutMs: config.webhookTimeoutMs, clock }),
    attemptTimeoutMs: config.webhookTimeoutMs,
    perOwner: config.webhookInFlightPerUser,
    maxPending: config.webhookMaxPending,
    gameDetail: services.games.getPublicGame,
    observe: registerWebhookMetrics(registry, () => countPendingDeliveries(pool)),
  });
  return {
    analysis,
    sweeper,
    stop: async () => {
      await sweeper.stop();
      await webhooks.stop();
      await analysis.stop();
    },
  };
}
