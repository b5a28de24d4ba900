import { timingSafeEqual } from 'node:crypto';
import { withTimeout } from '../time.ts';
import express from 'express';
import { AppError } from '../errors.ts';
import { REFUSAL_KINDS, type RefusalKind } from '../refusals.ts';
import { bearerToken } from './route.ts';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RequestHandler } from 'express';

export type Probe = () => Promise<void>;

export function createMetrics() {
  const registry = new Registry();
  // The event loop is sampled every 10 ms (prom-client's default, named here because
  // loadtest/bench.ts relies on it): on Node 20 its histogram records the whole interval between
  // samples, so an idle loop reads ~10 ms and the delay is what lies beyond that.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const observe: RequestHandler = (req, res, next) => {
    const end = httpDuration.startTimer();
    res.on('finish', () => {
      // The matched route pattern keeps the label set small (no ids in labels).
      const route = req.route?.path ? `${req.baseUrl}${req.route.path}` : 'unmatched';
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
  /** The same for a request answered past Express, whose route is known: call the result with the status once answered. */
  const timeRoute = (method: string, route: string) => {
    const end = httpDuration.startTimer();
    return (status: number) => void end({ method, route, status: String(status) });
  };
  return { registry, observe, timeRoute };
}

/** Live games of this process and the group-commit writer's work (batch size = moves / batches). */
export function registerGameMetrics(
  registry: Registry,
  games: {
    size: number;
    writer: { stats: Record<WriterStat, number>; onBatch: (ms: number, moves: number) => void; commitWindowMs: number };
    onRenewal: (ms: number, games: number) => void;
  },
): void {
  const renewalSeconds = new Histogram({
    name: 'chess_lease_renewal_seconds',
    help: "A round renewing every lease of this process's games (in chunks, one statement after another)",
    buckets: [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 5],
    registers: [registry],
  });
  games.onRenewal = (ms) => renewalSeconds.observe(ms / 1000);
  const batchSeconds = new Histogram({
    name: 'chess_move_batch_seconds',
    help: 'Group-commit batch statements, from the batch leaving the queue to its answer (a move waits for this before its ack)',
    buckets: [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 5],
    registers: [registry],
  });
  games.writer.onBatch = (ms) => batchSeconds.observe(ms / 1000);
  new Gauge({ name: 'chess_move_commit_window_seconds', help: 'MOVE_COMMIT_WINDOW_MS: how long after a move batch leaves the next one may wait for more moves', registers: [registry], collect() {
    this.set(games.writer.commitWindowMs / 1000);
  } });
  new Gauge({ name: 'chess_live_games', help: 'Live games hosted by this process', registers: [registry], collect() {
    this.set(games.size);
  } });
  const counted: Record<WriterStat, number> = { batches: 0, moves: 0, commits: 0, failedBatches: 0, timeouts: 0, badRows: 0 };
  const counter = (name: string, help: string, key: WriterStat) =>
    new Counter({ name, help, registers: [registry], collect() {
      this.inc(games.writer.stats[key] - counted[key]);
      counted[key] = games.writer.stats[key];
    } });
  counter('chess_move_batches_total', 'Group-commit batches written', 'batches');
  counter('chess_moves_written_total', 'Moves made durable', 'moves');
  counter('chess_move_commits_total', 'Move batch statements committed, each its own transaction (moves per commit = moves / commits)', 'commits');
  counter('chess_move_batches_failed_total', 'Move batch statements that failed as a whole (every move in them rejected)', 'failedBatches');
  counter('chess_move_batch_timeouts_total', 'Move batch statements cancelled by statement_timeout or given up at the writer deadline', 'timeouts');
  counter('chess_move_writes_refused_total', 'Moves PostgreSQL refused alone (a bad value), the rest of their batch written', 'badRows');
}

type WriterStat = 'batches' | 'moves' | 'commits' | 'failedBatches' | 'timeouts' | 'badRows';

/** Game exports (DESIGN 2.12) of this process: running now, batches read and games written. */
export function registerExportMetrics(
  registry: Registry,
  stats: { batches: number; games: number; active: number; waiting: number; reading: number; idle: number; refused: number },
): void {
  new Gauge({ name: 'chess_exports_active', help: 'Game exports streaming now', registers: [registry], collect() {
    this.set(stats.active);
  } });
  new Gauge({ name: 'chess_export_batches_reading', help: 'Batches of games the exports are reading from PostgreSQL now', registers: [registry], collect() {
    this.set(stats.reading);
  } });
  new Gauge({ name: 'chess_exports_waiting', help: 'Game exports waiting for their client to take the last batch (it reads slower than they read)', registers: [registry], collect() {
    this.set(stats.waiting);
  } });
  const counted = { batches: 0, games: 0, idle: 0, refused: 0 };
  for (const [key, name, help] of [
    ['batches', 'chess_export_batches_total', 'Batches of games the exports read from PostgreSQL'],
    ['games', 'chess_export_games_total', 'Games the exports wrote'],
    ['idle', 'chess_exports_idle_total', 'Game exports hung up on: their client took nothing for EXPORT_IDLE_SECONDS'],
    ['refused', 'chess_exports_refused_total', 'Game exports refused (429): the caller, its address or this node already ran as many as allowed'],
  ] as const) {
    new Counter({ name, help, registers: [registry], collect() {
      this.inc(stats[key] - counted[key]);
      counted[key] = stats[key];
    } });
  }
}

/** Webhook deliveries by outcome and their latency, and the deliveries waiting (every node's). */
export function registerWebhookMetrics(registry: Registry, pending: () => Promise<number>) {
  const outcomes = new Counter({
    name: 'chess_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome: delivered (2xx), retry (to be tried again), failed (given up)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'chess_webhook_attempt_seconds',
    help: 'Time from sending a webhook delivery to its answer (or timeout)',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  new Gauge({ name: 'chess_webhook_deliveries_pending', help: 'Webhook deliveries waiting to be delivered (the queue)', registers: [registry], async collect() {
    this.set(await pending().catch(() => NaN));
  } });
  return (outcome: 'delivered' | 'retry' | 'failed', durationMs: number) => {
    outcomes.inc({ outcome });
    latency.observe(durationMs / 1000);
  };
}

/** The analysis workers of this process: searches, jobs, engine failures, and the queue. */
export function registerAnalysisMetrics(registry: Registry, pending: () => Promise<number>) {
  const searches = new Histogram({
    name: 'chess_analysis_search_seconds',
    help: 'Time the engine took to search one position to ANALYSIS_DEPTH',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const jobs = new Counter({
    name: 'chess_analysis_jobs_total',
    help: 'Analysis jobs by outcome: done (stored), retry (given back after a failure), lost (another worker took the claim over)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const failures = new Counter({
    name: 'chess_analysis_engine_failures_total',
    help: 'Engines that died or hung (no bestmove in time) and were replaced',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  new Gauge({ name: 'chess_analysis_jobs_pending', help: 'Finished games waiting for (or in) analysis', registers: [registry], async collect() {
    this.set(await pending().catch(() => NaN));
  } });
  return {
    searched: (ms: number) => searches.observe(ms / 1000),
    finished: (outcome: 'done' | 'retry' | 'lost') => jobs.inc({ outcome }),
    engineFailed: (kind: 'died' | 'hung') => failures.inc({ kind }),
  };
}

/** The tournament actors of this process: their steps' durations, games counted, players seated and their waits. */
export function registerTournamentMetrics(registry: Registry) {
  const phases = new Histogram({
    name: 'chess_tournament_step_seconds',
    help: 'Wall time of a tournament actor step: count (ended games into the standings), pair (a round), finish',
    labelNames: ['phase'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const counted = new Counter({ name: 'chess_tournament_games_counted_total', help: 'Ended tournament games counted into the standings', registers: [registry] });
  const waits = new Histogram({
    name: 'chess_tournament_pairing_wait_seconds',
    help: 'How long a player waited for a tournament pairing (from their last game ending, or joining)',
    buckets: [0.25, 0.5, 1, 1.5, 2, 2.5, 3, 4, 5, 7.5, 10, 20, 60],
    registers: [registry],
  });
  return {
    phase: (phase: 'count' | 'pair' | 'finish', seconds: number) => phases.observe({ phase }, seconds),
    counted: (games: number) => counted.inc(games),
    paired: (waitsMs: number[]) => {
      for (const ms of waitsMs) waits.observe(ms / 1000);
    },
  };
}

/** The stream and realtime sockets of this process, and the channels they listen to. */
export function registerRealtimeMetrics(registry: Registry, stats: () => { sockets: number; channels: number }): void {
  new Gauge({ name: 'chess_realtime_sockets', help: 'Open stream and realtime sockets', registers: [registry], collect() {
    this.set(stats().sockets);
  } });
  new Gauge({ name: 'chess_realtime_channels', help: 'Presence channels the sockets of this process listen to', registers: [registry], collect() {
    this.set(stats().channels);
  } });
}

/** The client mistakes and contention this process refused (src/refusals.ts), by kind. */
export function registerRefusalMetrics(registry: Registry, counts: Record<RefusalKind, number>): void {
  const reported = Object.fromEntries(REFUSAL_KINDS.map((k) => [k, 0])) as Record<RefusalKind, number>;
  new Counter({
    name: 'chess_refusals_total',
    help: 'Client mistakes and contention refused without a fault: malformed frames, socket protocol errors, refused joins, held leases',
    labelNames: ['kind'] as const,
    registers: [registry],
    collect() {
      for (const kind of REFUSAL_KINDS) {
        this.inc({ kind }, counts[kind] - reported[kind]);
        reported[kind] = counts[kind];
      }
    },
  });
}

/**
 * Unversioned operational endpoints; none of them is rate limited.
 * `/readyz` answers 503 while any dependency (database, Redis) does not answer.
 */
export function opsRouter(o: {
  probes: Record<string, Probe>;
  registry: Registry;
  openapi: () => object;
  /** When set, /metrics asks for it as a bearer token; else it answers loopback callers only. */
  metricsToken: string | undefined;
  /** This process's id in the cluster (Colyseus processId, the `host` of the games it owns). */
  nodeId: () => string | undefined;
}): express.Router {
  const router = express.Router();
  router.get('/healthz', (_req, res) => {
    res.json({ success: true, data: { status: 'ok', node: o.nodeId() ?? null } });
  });
  router.get('/readyz', async (_req, res) => {
    const checks: Record<string, string> = {};
    await Promise.all(
      Object.entries(o.probes).map(async ([name, probe]) => {
        try {
          await withTimeout(probe(), 2000);
          checks[name] = 'ok';
        } catch (e) {
          checks[name] = `down: ${(e as Error).message}`;
        }
      }),
    );
    const ready = Object.values(checks).every((c) => c === 'ok');
    if (ready) res.json({ success: true, data: { status: 'ready', checks } });
    else res.status(503).json({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: 'Not ready', details: checks } });
  });
  router.get('/metrics', async (req, res) => {
    assertMayReadMetrics(req, o.metricsToken);
    res.setHeader('Content-Type', o.registry.contentType);
    res.send(await o.registry.metrics());
  });
  const openapi = (_req: express.Request, res: express.Response) => {
    res.json(o.openapi());
  };
  for (const p of ['/v1/openapi.json', '/api/openapi.json', '/api/v1/openapi.json', '/openapi.json']) router.get(p, openapi);
  return router;
}

/**
 * Metrics tell a stranger how busy the service is and how its insides behave: with METRICS_TOKEN
 * they need it as a bearer token; without, only a caller on this machine gets them, and not one
 * relayed by a proxy (a forwarding header means someone else is asking through it).
 */
function assertMayReadMetrics(req: express.Request, token: string | undefined): void {
  if (token) {
    const given = Buffer.from(bearerToken(req.get('authorization')) ?? '');
    const wanted = Buffer.from(token);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
      throw new AppError('UNAUTHORIZED', 'The metrics need the bearer token METRICS_TOKEN');
    }
    return;
  }
  const relayed = ['x-forwarded-for', 'forwarded', 'x-real-ip'].some((h) => req.get(h) !== undefined);
  if (relayed || !isLoopback(req.socket.remoteAddress)) {
    throw new AppError('FORBIDDEN', 'The metrics are served to this machine only (or set METRICS_TOKEN)');
  }
}

const isLoopback = (address: string | undefined) =>
  address !== undefined && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));

