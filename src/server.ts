import './polyfills.ts';
import http from 'node:http';
import { matchMaker, LocalPresence, LocalDriver, Server, type Presence, type MatchMakerDriver } from '@colyseus/core';
import { RedisPresence } from '@colyseus/redis-presence';
import { Redis } from 'ioredis';
import proxyAddr from 'proxy-addr';
import { assertPinnedChessJs } from './chessVersion.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { startEmbeddedPostgres } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { createPool } from './db/pool.ts';
import { createHttpApp } from './http/app.ts';
import { createIdempotency } from './http/idempotency.ts';
import { buildOpenApi } from './http/openapi.ts';
import { createMetrics, opsRouter, registerAnalysisMetrics, registerGameMetrics, registerRealtimeMetrics, registerRefusalMetrics, registerTournamentMetrics, registerWebhookMetrics } from './http/ops.ts';
import { pagesRouter } from './http/pages.ts';
import { webRouter } from './http/web.ts';
import { webBundle } from './http/webBundle.ts';
import { createRateLimit } from './http/rateLimit.ts';
import { matchmakeRouter } from './http/matchmake.ts';
import { buildRoutes } from './http/routes/index.ts';
import { createRateLimits, limiterFactory } from './limits.ts';
import { createEventBus } from './events.ts';
import { createGameEventLog } from './services/gameEvents.ts';
import { createLogger, type Logger } from './logger.ts';
import { createServices, type Services } from './services/index.ts';
import { loadBundledPuzzles } from './services/puzzleImport.ts';
import { LiveGameHost } from './services/liveGameHost.ts';
import { createTournamentSchedule } from './services/tournamentSchedule.ts';
import { GAME_ROOM, LOBBY_ROOM, POOL_ROOM, TOURNAMENT_ROOM, nodeGone, nodeSeen, openGame, openTournament, relistRooms } from './gateway/index.ts';
import { OwnListingsDriver } from './gateway/listings.ts';
import { startNodeWatch } from './workers/nodeWatch.ts';
import { startSweeper, type Sweeper } from './workers/sweeper.ts';
import { startWebhookDispatcher } from './workers/webhooks.ts';
import { startAnalysisWorkers, type AnalysisWorkers } from './workers/analysis.ts';
import { engineCommand } from './workers/engine.ts';
import { countPendingAnalyses } from './db/analysis.ts';
import { loadOpeningBook } from './domain/openings.ts';
import { createSender } from './workers/webhookSender.ts';
import { countPendingDeliveries } from './db/webhooks.ts';
import { formatSeek, lobbyReads } from './services/seekViews.ts';
import { createRealtime } from './realtime/index.ts';
import { countRefusal, refusals } from './refusals.ts';
import { systemClock, type Clock } from './time.ts';
import { GuardedWebSocketTransport } from '../rooms/frames.ts';
import { GameRoom } from '../rooms/GameRoom.ts';
import { SeekPoolRoom } from '../rooms/SeekPoolRoom.ts';
import { LobbyRoom } from '../rooms/LobbyRoom.ts';
import { TournamentRoom } from '../rooms/TournamentRoom.ts';

export type RunningService = {
  /** The port actually bound (PORT=0 picks a free one). */
  port: number;
  url: string;
  ctx: AppContext;
  services: Services;
  gameServer: Server;
  analysis: AnalysisWorkers;
  stop: () => Promise<void>;
};

/**
 * The composition root of one process: database → migrations → Redis → services → Express side
 * app and Colyseus on one HTTP server. Without DATABASE_URL a real PostgreSQL is embedded; without
 * REDIS_URL presence, driver and counters are in memory (a single node).
 */
export async function startService(
  config: Config,
  log: Logger = createLogger(config.logLevel),
  clock: Clock = systemClock,
): Promise<RunningService> {
  assertPinnedChessJs();
  const cleanup: Array<() => Promise<unknown>> = [];
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const embedded = await startEmbeddedPostgres(`${config.dataDir}/pg`, log);
      cleanup.unshift(embedded.stop);
      databaseUrl = embedded.url;
    }
    // A statement still running after a third of the game lease is stuck: cancel it, so this
    // node gives its games up (src/services/liveGameHost.ts) well before their leases lapse.
    const pool = createPool(databaseUrl, 20, { statementTimeoutMs: Math.min(5000, Math.round(config.gameLeaseMs / 3)) });
    cleanup.unshift(() => pool.end());
    // The tournament actors' own few connections: a round never waits behind a burst of requests.
    const tournamentPool = createPool(databaseUrl, 3, { statementTimeoutMs: Math.min(5000, Math.round(config.gameLeaseMs / 3)) });
    cleanup.unshift(() => tournamentPool.end());
    const applied = await migrate(pool);
    if (applied.length) log.info({ applied }, 'migrations applied');
    // Data the migrations cannot carry as SQL: the bundled puzzles, once per database.
    await loadBundledPuzzles(pool, log);

    const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 2, lazyConnect: false }) : undefined;
    if (redis) {
      redis.on('error', (err) => log.warn({ err: err.message }, 'redis error'));
      cleanup.unshift(() => redis.quit());
    }

    const events = createEventBus();
    const gameEvents = createGameEventLog({ events, redis, clock });
    const makeLimiter = limiterFactory(redis);
    const limits = createRateLimits(config.rateLimits, makeLimiter, () => clock.now());
    const ctx: AppContext = { config, log, pool, redis, makeLimiter, limits, events, clock };
    // Made before the services: the games service reads the games this process hosts from them.
    const liveGames = new LiveGameHost(pool, config, log.child({ component: 'games' }), '', clock);
    const services = createServices(ctx, liveGames);
    cleanup.unshift(() => services.close());

    const routes = buildRoutes(services);
    const metrics = createMetrics();
    let openapiDoc: object | undefined;
    const openapi = () => (openapiDoc ??= buildOpenApi(routes, config.publicUrl));
    const rateLimit = createRateLimit(limits);
    const app = createHttpApp({
      log,
      trustProxy: config.trustProxy,
      https: config.publicUrl.startsWith('https:'),
      corsOrigins: config.corsOrigins,
      routes,
      deps: { authenticate: services.auth.authenticate, rateLimit, idempotency: createIdempotency({ db: pool, clock, log }) },
      before: [metrics.observe],
      clock,
      ops: opsRouter({
        probes: {
          database: async () => void (await pool.query('SELECT 1')),
          ...(redis ? { redis: async () => void (await redis.ping()) } : {}),
        },
        registry: metrics.registry,
        openapi,
        metricsToken: config.metricsToken,
        nodeId: () => matchMaker.processId,
      }),
      routers: [
        matchmakeRouter(),
        pagesRouter({ accounts: services.accounts, rateLimit, log }),
        webRouter({ bundle: webBundle(log.child({ component: 'web' })), publicUrl: config.publicUrl }),
      ],
    });

    const httpServer = http.createServer(app);
    const socketLog = log.child({ component: 'sockets' });
    const transport = new GuardedWebSocketTransport(
      // Colyseus pings every socket every 3 s: at 1,000 games that is 667 pings (and pongs) a
      // second, as many socket writes as the moves make. A socket that closes says so at once;
      // pings only find the silently dead ones, which at 10 s × 2 missed go within 30 s (the
      // seat then waits its 60 s for a reconnection as before).
      { noServer: true, maxPayload: 4 * 1024, pingInterval: 10_000 },
      {
        refused: (kind, detail) => {
          countRefusal(kind);
          socketLog.debug({ kind, detail }, 'client frame refused');
        },
      },
    );
    // The game stream and the realtime channel share the port: upgrades on their paths are theirs,
    // every other upgrade is Colyseus's (its rooms' /<processId>/<roomId>).
    const realtime = createRealtime({
      events,
      clock,
      log,
      authenticate: services.auth.authenticate,
      sessionLive: services.auth.sessionLive,
      hold: services.presence.hold,
      snapshot: services.games.snapshot,
      missed: gameEvents.since,
      watching: gameEvents.watch,
      openSeeks: async () => (await lobbyReads(pool).openSeeks()).map(formatSeek),
      tournamentExists: services.tournaments.exists,
      caps: { perAddress: config.realtimeSocketsPerAddress, perUser: config.realtimeSocketsPerUser },
      // The address Express gives a request (req.ip): behind TRUST_PROXY, the forwarded client's.
      addressOf: (req) => proxyAddr(req, app.get('trust proxy fn')),
    });
    transport.attachToServer(httpServer, { filter: (req) => !realtime.handles(req) });
    httpServer.on('upgrade', (req, socket, head) => {
      if (realtime.handles(req)) realtime.upgrade(req, socket, head);
    });

    const gameServer = new Server({
      transport,
      ...clusterParts(config, log),
      publicAddress: config.publicAddress,
      gracefullyShutdown: false,
      greet: false,
      logger: log.child({ component: 'colyseus' }),
    });

    GameRoom.deps = { host: liveGames, authenticate: services.auth.authenticate, hold: services.presence.hold };
    gameServer.define(GAME_ROOM, GameRoom);
    SeekPoolRoom.deps = { ctx, authenticate: services.auth.authenticate, hostId: () => matchMaker.processId };
    // One room per pool: joiners and the gateway find it by these four options.
    gameServer.define(POOL_ROOM, SeekPoolRoom).filterBy(['time_control', 'initial_time', 'increment', 'rated']);
    LobbyRoom.deps = { reads: lobbyReads(pool), events, authenticate: services.auth.authenticate };
    gameServer.define(LOBBY_ROOM, LobbyRoom);
    TournamentRoom.deps = { ctx, hostId: () => matchMaker.processId, pool: tournamentPool, observe: registerTournamentMetrics(metrics.registry) };
    gameServer.define(TOURNAMENT_ROOM, TournamentRoom);

    // This node's id is known once the matchmaker is set up. Before it can host anything, it holds
    // its node lock, and the leases of nodes found dead (a crashed predecessor) are ended.
    await matchMaker.onReady;
    liveGames.hostId = matchMaker.processId;
    let sweeper: Sweeper | undefined;
    if (config.failoverDetection === 'lock') {
      const watch = await startNodeWatch({
        databaseUrl,
        pool,
        log: log.child({ component: 'nodes' }),
        id: matchMaker.processId,
        address: config.publicAddress,
        onGone: async (id, endedHere) => {
          await nodeGone(id, { dropListings: endedHere });
          if (endedHere) sweeper?.kick();
        },
        onSeen: nodeSeen,
      });
      cleanup.unshift(watch.stop);
    }
    await gameServer.listen(config.port, config.host);
    serveHttpWithApp(httpServer, app);
    events.attach(matchMaker.presence);
    const analysis = startAnalysisWorkers({
      pool,
      log: log.child({ component: 'analysis' }),
      clock,
      command: engineCommand(config.stockfishPath),
      workers: config.analysisWorkers,
      depth: config.analysisDepth,
      node: matchMaker.processId,
      lockMs: config.analysisLockMs,
      openings: loadOpeningBook,
      observe: registerAnalysisMetrics(metrics.registry, () => countPendingAnalyses(pool)),
    });
    liveGames.setPublisher((gameId, event) => {
      gameEvents.publish(gameId, event);
      // A game that ended here is analysed here as soon as an engine is free.
      if (event.type === 'game_end') analysis.kick();
    });
    sweeper = startSweeper({
      pool,
      log,
      clock,
      // The sweeper knows nobody holds these games' leases: a room listed on a node that does
      // not answer is a dead node's leftover.
      openGame: (gameId) => openGame(gameId, { orphaned: true }),
      openTournament,
      tendTournaments: createTournamentSchedule(ctx, tournamentPool).tend,
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
      observe: registerWebhookMetrics(metrics.registry, () => countPendingDeliveries(pool)),
    });
    registerGameMetrics(metrics.registry, liveGames);
    registerRefusalMetrics(metrics.registry, refusals);
    registerRealtimeMetrics(metrics.registry, realtime.stats);
    const port = (httpServer.address() as { port: number }).port;
    // The address to open: a wildcard bind is reached as localhost.
    const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
    log.info({ port, database: config.databaseUrl ? 'external' : 'embedded', redis: !!redis, publicUrl: config.publicUrl }, `listening on http://${host}:${port}`);

    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        // Stop accepting, let rooms flush and dispose, then close connections in reverse order.
        httpServer.close();
        await realtime.close();
        await sweeper?.stop();
        await webhooks.stop();
        // Running analyses go back to the queue and every engine process exits.
        await analysis.stop();
        // Rooms release their games (clocks booked, lease freed) as Colyseus disposes them.
        await gameServer.gracefullyShutdown(false).catch((err) => log.warn({ err }, 'colyseus shutdown'));
        liveGames.close();
        httpServer.closeAllConnections();
        for (const c of cleanup) await c().catch((err) => log.warn({ err }, 'cleanup failed'));
      })());

    return { port, url: `http://127.0.0.1:${port}`, ctx, services, gameServer, analysis, stop };
  } catch (error) {
    for (const c of cleanup) await c().catch(() => {});
    throw error;
  }
}

/**
 * Colyseus's presence and matchmaker driver: in memory for one node, else on Redis clients of our
 * own. A command to an unreachable Redis fails after two retries (a 503 for the request) instead
 * of waiting ten seconds; connection errors are logged, not printed unhandled; and when Redis
 * comes back (restarted, possibly empty) this node lists its rooms and its load again, so that
 * the other nodes find its games and send it rooms to create.
 */
function clusterParts(config: Config, log: Logger): { presence: Presence; driver: MatchMakerDriver } {
  if (!config.redisUrl) return { presence: new LocalPresence(), driver: new LocalDriver() };
  const client = (name: string) => {
    const redis = new Redis(config.redisUrl!, { maxRetriesPerRequest: 2 });
    redis.on('error', (err) => log.warn({ err: err.message, client: name }, 'redis error'));
    return redis;
  };
  const listings = client('driver');
  let lost = false;
  listings.on('close', () => (lost = true));
  listings.on('ready', () => {
    if (!lost) return;
    lost = false;
    relistRooms().then(
      () => log.info('redis is back: this node listed its rooms again'),
      (err) => log.warn({ err }, 'could not list the rooms again'),
    );
  });
  return { presence: new RedisPresence(client('presence')), driver: new OwnListingsDriver(listings) };
}

/**
 * Every HTTP request goes to the Express app, /matchmake included (src/http/matchmake.ts):
 * Colyseus's own router (bound at listen) would answer it with its permissive CORS, 5xx codes
 * and bodies outside the envelope, and adds `GET /` and `/__healthcheck`, which this service
 * does not serve (`/healthz` is its health check; nodes check each other over presence).
 */
function serveHttpWithApp(httpServer: http.Server, app: http.RequestListener): void {
  httpServer.removeAllListeners('request');
  httpServer.on('request', app);
}
