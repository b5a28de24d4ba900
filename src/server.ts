import './polyfills.ts';
import http from 'node:http';
import { matchMaker, Server } from '@colyseus/core';
import { assertPinnedChessJs } from './chessVersion.ts';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { COLORS } from './domain/game.ts';
import { createEventBus } from './events.ts';
import { GAME_ROOM, LOBBY_ROOM, POOL_ROOM, TOURNAMENT_ROOM } from './gateway/index.ts';
import { createMetrics, registerExportMetrics, registerGameMetrics, registerRealtimeMetrics, registerRefusalMetrics, registerTournamentMetrics } from './http/ops.ts';
import { createRateLimits, limiterFactory } from './limits.ts';
import { createLogger, type Logger } from './logger.ts';
import { countRefusal, refusals } from './refusals.ts';
import { bootStorage, clusterParts, Teardown } from './server/boot.ts';
import { drainOnStop } from './server/shutdown.ts';
import { createSideApp } from './server/sideApp.ts';
import { attachRealtime } from './server/realtime.ts';
import type { Realtime } from './realtime/index.ts';
import { startWorkers, watchNodes, type Workers } from './server/workers.ts';
import { channels } from './services/channelEvents.ts';
import { createGameEventLog } from './services/gameEvents.ts';
import { createServices, type Services } from './services/index.ts';
import { LiveGameHost } from './services/liveGameHost.ts';
import { userNotifier } from './services/userEvents.ts';
import { lobbyReads } from './services/seekViews.ts';
import { systemClock, type Clock } from './time.ts';
import type { AnalysisWorkers } from './workers/analysis.ts';
import { startComputerPlayer, type ComputerPlayer } from './workers/computer.ts';
import { engineCommand } from './workers/engine.ts';
import { GuardedWebSocketTransport } from '../rooms/frames.ts';
import { GameRoom } from '../rooms/GameRoom.ts';
import { LobbyRoom } from '../rooms/LobbyRoom.ts';
import { SeekPoolRoom } from '../rooms/SeekPoolRoom.ts';
import { TournamentRoom } from '../rooms/TournamentRoom.ts';

export type RunningService = {
  /** The port actually bound (PORT=0 picks a free one). */
  port: number;
  url: string;
  ctx: AppContext;
  services: Services;
  gameServer: Server;
  analysis: AnalysisWorkers;
  computer: ComputerPlayer;
  stop: () => Promise<void>;
};

/**
 * The composition root of one process: database → migrations → Redis → services → Express side
 * app and Colyseus on one HTTP server → background workers. Without DATABASE_URL a real
 * PostgreSQL is embedded; without REDIS_URL presence, driver and counters are in memory (a single
 * node). Boot, workers and the drain are in src/server/.
 */
/** The events of a game after which the computer looks whether it has a move to make or an offer to answer. */
const COMPUTER_CONSIDERS = new Set(['move', 'takeback', 'draw_offer', 'takeback_offer', 'game_end']);

export async function startService(
  config: Config,
  log: Logger = createLogger(config.logLevel),
  clock: Clock = systemClock,
): Promise<RunningService> {
  assertPinnedChessJs();
  const teardown = new Teardown();
  try {
    const { databaseUrl, pool, tournamentPool, redis } = await bootStorage(config, log, teardown);
    const events = createEventBus();
    const gameEvents = createGameEventLog({ events, redis, clock });
    const makeLimiter = limiterFactory(redis);
    const limits = createRateLimits(config.rateLimits, makeLimiter, () => clock.now());
    const ctx: AppContext = { config, log, pool, redis, makeLimiter, limits, events, clock };
    // The workers start once the server listens; until then no game can be hosted here.
    let workers: Workers | undefined;
    // The computer's moves in the games hosted here (DESIGN 2.14): made once the services are.
    let computer: ComputerPlayer | undefined;
    // Made before the services: the games service reads the games this process hosts from them.
    const notifyUser = userNotifier(ctx);
    const liveGames = new LiveGameHost(pool, config, log.child({ component: 'games' }), '', clock, (gameId, event) => {
      gameEvents.publish(gameId, event);
      if (COMPUTER_CONSIDERS.has(event.type)) computer?.consider(gameId);
      if (event.type !== 'game_end') return;
      // A game that ended here is analysed here as soon as an engine is free.
      workers?.analysis.kick();
      // Its players' own channels hear that it ended (internal: Lichess's gameFinish, DESIGN 2.13).
      const game = liveGames.find(gameId);
      for (const color of COLORS) if (game) notifyUser(game.seat(color).id, { type: 'game_finished', game_id: gameId });
    });
    const services = createServices(ctx, liveGames);
    teardown.add(() => services.close());
    const player = (computer = startComputerPlayer({
      pool,
      log: log.child({ component: 'computer' }),
      clock,
      command: engineCommand(config.stockfishPath),
      engines: config.computerEngines,
      find: (gameId) => {
        const g = liveGames.find(gameId);
        if (!g) return undefined;
        return {
          status: g.status,
          fen: g.game.fen,
          moves: g.game.uciList,
          turn: g.game.turn,
          seatId: (color) => g.seat(color).id,
          remainingMs: (color) => g.times()[color],
          incrementMs: g.chessClock.incrementMs,
          drawOffer: g.drawOffer,
          takebackOffer: g.takebackOffer,
        };
      },
      seatId: (gameId, color) => liveGames.find(gameId)?.seat(color).id,
      move: (botId, gameId, m) => services.games.command('move', botId, gameId, m),
      answer: (kind, botId, gameId, offerId, accept) =>
        kind === 'draw'
          ? services.games.command('answer_draw', botId, gameId, { offer_id: offerId, accept })
          : services.games.command('answer_takeback', botId, gameId, { takeback_id: offerId, accept }),
    }));
    teardown.add(() => player.stop());
    // A game opened here (started, or rebuilt after its node went away) may be the computer's turn.
    liveGames.onHosted = (gameId) => player.consider(gameId);

    const metrics = createMetrics();
    // The HTTP forms of the stream and the user channel are the realtime side's, made with the server below.
    let streams: Realtime | undefined;
    const { app, listener } = createSideApp({ ctx, services, metrics, streams: (req, res, next) => (streams ? streams.serveHttp(req, res, next) : next()), realtime: () => streams });
    const httpServer = http.createServer(listener);
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
    const realtime = (streams = attachRealtime({ ctx, services, gameEvents, app, httpServer, transport }));

    const gameServer = new Server({
      transport,
      ...clusterParts(config, log),
      publicAddress: config.publicAddress,
      gracefullyShutdown: false,
      greet: false,
      logger: log.child({ component: 'colyseus' }),
    });

    GameRoom.deps = {
      host: liveGames,
      authenticate: services.auth.authenticate,
      hold: services.presence.hold,
      chat: services.chat,
      credentials: services.auth.credentials,
      rematchOffers: (gameId, listener) =>
        events.subscribe(channels.game(gameId), (e) => {
          if (e.type === 'rematch_offer') listener(e);
        }),
    };
    gameServer.define(GAME_ROOM, GameRoom);
    SeekPoolRoom.deps = { ctx, authenticate: services.auth.authenticate, hostId: () => matchMaker.processId, credentials: services.auth.credentials };
    // One room per pool: joiners and the gateway find it by these four options.
    gameServer.define(POOL_ROOM, SeekPoolRoom).filterBy(['time_control', 'initial_time', 'increment', 'rated']);
    LobbyRoom.deps = { reads: lobbyReads(pool), events, authenticate: services.auth.authenticate, clock, credentials: services.auth.credentials };
    gameServer.define(LOBBY_ROOM, LobbyRoom);
    TournamentRoom.deps = { ctx, hostId: () => matchMaker.processId, pool: tournamentPool, observe: registerTournamentMetrics(metrics.registry) };
    gameServer.define(TOURNAMENT_ROOM, TournamentRoom);

    // This node's id is known once the matchmaker is set up. Before it can host anything, it holds
    // its node lock, and the leases of nodes found dead (a crashed predecessor) are ended.
    await matchMaker.onReady;
    liveGames.hostId = matchMaker.processId;
    const stopWatch = await watchNodes({ config, databaseUrl, pool, log, clock, nodeId: matchMaker.processId, freed: () => workers?.sweeper.kick() });
    if (stopWatch) teardown.add(stopWatch);
    await gameServer.listen(config.port, config.host);
    serveHttpWithApp(httpServer, listener);
    events.attach(matchMaker.presence);
    workers = startWorkers({ ctx, services, tournamentPool, nodeId: matchMaker.processId, registry: metrics.registry });
    const { analysis } = workers;
    registerGameMetrics(metrics.registry, liveGames);
    registerRefusalMetrics(metrics.registry, refusals);
    registerRealtimeMetrics(metrics.registry, realtime.stats);
    registerExportMetrics(metrics.registry, services.exports.stats);
    const port = (httpServer.address() as { port: number }).port;
    // The address to open: a wildcard bind is reached as localhost.
    const host = ['0.0.0.0', '::', ''].includes(config.host) ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
    log.info({ port, database: config.databaseUrl ? 'external' : 'embedded', redis: !!redis, publicUrl: config.publicUrl }, `listening on http://${host}:${port}`);

    const stop = drainOnStop({ httpServer, realtime, workers, gameServer, liveGames, teardown, log });
    return { port, url: `http://127.0.0.1:${port}`, ctx, services, gameServer, analysis, computer: player, stop };
  } catch (error) {
    await teardown.run(() => {});
    throw error;
  }
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
