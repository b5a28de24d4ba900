import type { IncomingMessage } from 'node:http';
import type { AuthUser } from '../auth/scopes.ts';
import type { EventBus } from '../events.ts';
import type { Logger } from '../logger.ts';
import type { GameSnapshot } from '../services/games.ts';
import type { LiveCredentials } from '../services/liveCredentials.ts';
import type { SeekView } from '../services/seekViews.ts';
import type { FeaturedGameView } from '../services/watching.ts';
import type { Clock } from '../time.ts';
import type { SocketCapLimits, SocketCaps } from './caps.ts';
import type { Connections } from './connections.ts';
import type { GameTicks } from './gameTicks.ts';
import type { ChannelHub } from './hub.ts';
import type { PeerLimits } from './peer.ts';
import type { TvStation } from './tvStation.ts';

/** What the realtime surfaces are given (src/server.ts): apart from index.ts so that every part can name them. */
export type RealtimeDeps = {
  events: Pick<EventBus, 'subscribeRaw'>;
  clock: Clock;
  log: Logger;
  /** A verified access token of a live session, else throws UNAUTHORIZED. */
  authenticate: (token: string) => Promise<AuthUser>;
  /** Ends a socket, stream or subscription when the credential it was opened with ends (DESIGN 2.12). */
  credentials: Pick<LiveCredentials, 'watch'>;
  /** Counts the user as online while their user channel is open (friend lists' `online`). */
  hold?: (userId: string) => () => void;
  /** The game as `viewerId` (or anyone) may see it; throws GAME_NOT_FOUND. */
  snapshot: (viewerId: string | undefined, gameId: string) => Promise<GameSnapshot>;
  /** Events of the game published after `after`, from the replay buffer. */
  missed: (gameId: string, after: number) => Promise<string[] | undefined>;
  /** A stream of this node begins watching the game: its events must be kept for `missed` from now on. */
  watching?: (gameId: string) => void;
  openSeeks: () => Promise<SeekView[]>;
  /** DESIGN 2.14: the TV's featured game, the same on every node; null while no game is live. */
  featured?: () => Promise<FeaturedGameView | null>;
  /** Whether a tournament exists (`tournament:<id>` of an unknown one is refused). */
  tournamentExists?: (id: string) => Promise<boolean>;
  limits?: Partial<PeerLimits>;
  /** Open sockets one client address (the rooms' too: Realtime.admitOther), and one user, may hold on this node (default 50 and 20). */
  caps?: Partial<SocketCapLimits>;
  /** The client's address, as the HTTP side sees it behind trusted proxies (default: the peer's address). */
  addressOf?: (req: IncomingMessage) => string | undefined;
  /** A socket that does not answer a ping within this long is dropped (default 30 s). */
  heartbeatMs?: number;
  /** How often every HTTP stream gets its keep-alive newline (default 7 s, DESIGN 2.12). */
  keepAliveMs?: number;
};

/** What the sessions of watching use: the realtime deps they need, the node's hub and game ticks, `now` on the service's clock. */
export type SessionDeps = Pick<RealtimeDeps, 'log' | 'credentials' | 'hold' | 'snapshot' | 'missed' | 'watching'> & {
  hub: ChannelHub;
  ticks: GameTicks;
  /** The node's TV (DESIGN 2.14): the `tv` channel's and `GET /tv/feed`'s viewers join it. */
  tv: TvStation;
  now: () => number;
};

/** What the surfaces of one node share, made once by createRealtime. */
export type RealtimeNode = {
  deps: RealtimeDeps;
  sessions: SessionDeps;
  caps: SocketCaps;
  /** The node's sockets and HTTP streams (heartbeat, keep-alive, shutdown, the count). */
  connections: Connections;
  log: Logger;
  now: () => number;
};
