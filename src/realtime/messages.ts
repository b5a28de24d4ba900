import { z } from 'zod';
import { parseId } from '../domain/ids.ts';
import type { NumberedEvent, Times } from '../domain/liveGameViews.ts';
import type { AppError, ErrorCode, ErrorDetails } from '../errors.ts';
import type { ChannelEvents, ChatEvent, PresenceNews, RematchOffer } from '../services/channelEvents.ts';
import type { GameSnapshot } from '../services/games.ts';
import type { FeaturedGameView } from '../services/watching.ts';
import type { SeekView } from '../services/seekViews.ts';
import type { InternalUserEventType } from '../services/userEvents.ts';
import { err, ok, type Failure, type Result } from '../result.ts';
import { issuesToDetails } from '../util/zod.ts';

/**
 * The catalogue of what goes over the game stream and the realtime channel (and their NDJSON
 * forms), each way, as rooms/messages.ts is the rooms' (lila-ws `ClientOut` / `ClientIn`): a
 * client's messages are parsed with the schemas below, every message of ours is one case of a map
 * below sent through one typed `send`, and the protocol tables of docs/protocol.md are checked
 * against REALTIME_MESSAGES (test/realtime/protocol.test.ts). Close codes end the file.
 */

// ---- client → server ---------------------------------------------------------------------------

/** Any message may carry an `id`, echoed in its answer. */
const requestId = z.union([z.string().max(64), z.number()]).optional();
const channelName = z.string().min(1).max(100);

/** What a client may send on the realtime channel (DESIGN 2.6); the stream takes `ping` alone. */
export const CLIENT_MESSAGES = ['subscribe', 'unsubscribe', 'ping'] as const;
export type ClientMessageType = (typeof CLIENT_MESSAGES)[number];
export const STREAM_CLIENT_MESSAGES = ['ping'] as const satisfies readonly ClientMessageType[];

/** Each message's schema, its `type` included: on these sockets a message is one JSON object. */
export const ClientMessageSchemas = {
  subscribe: z.object({ type: z.literal('subscribe'), channel: channelName, token: z.string().max(4096).optional(), id: requestId }),
  unsubscribe: z.object({ type: z.literal('unsubscribe'), channel: channelName, id: requestId }),
  ping: z.object({ type: z.literal('ping'), id: requestId }),
} as const satisfies { [T in ClientMessageType]: z.ZodObject<{ type: z.ZodLiteral<T> } & z.ZodRawShape> };

export type ClientMessages = { [T in ClientMessageType]: z.infer<(typeof ClientMessageSchemas)[T]> };
export type ClientMessage = ClientMessages[ClientMessageType];

type ClientMessageSchema = (typeof ClientMessageSchemas)[ClientMessageType];
const ClientMessage = z.discriminatedUnion('type', CLIENT_MESSAGES.map((type) => ClientMessageSchemas[type]) as [ClientMessageSchema, ...ClientMessageSchema[]]);

/** A client frame: JSON text holding one of ClientMessage. */
export function parseClientMessage(data: unknown, isBinary: boolean): Result<ClientMessage, Omit<Failure, 'code'>> {
  if (isBinary) return err({ message: 'Send JSON text frames' });
  let json: unknown;
  try {
    json = JSON.parse(String(data));
  } catch {
    return err({ message: 'Not JSON' });
  }
  const parsed = ClientMessage.safeParse(json);
  if (!parsed.success) return err({ message: 'Invalid message', details: issuesToDetails(parsed.error.issues) });
  return ok(parsed.data);
}

/**
 * The channels of DESIGN 2.6, 2.10 and 2.14: a game's events, a user's own personal events, the
 * open seeks, an arena's pairings and standings, the TV's featured game.
 */
export type ChannelName = { kind: 'game' | 'user' | 'tournament'; id: string } | { kind: 'lobby' } | { kind: 'tv' };

/** A channel as the client named it, its id parsed (lower-cased); undefined when it is none. */
export function parseChannel(channel: string): ChannelName | undefined {
  if (channel === 'lobby') return { kind: 'lobby' };
  if (channel === 'tv') return { kind: 'tv' };
  const m = /^(game|user|tournament):(.+)$/.exec(channel);
  const id = m && parseId(m[2]);
  if (!m || !id) return undefined;
  return { kind: m[1] as 'game' | 'user' | 'tournament', id };
}

/**
 * The channel's one name: the socket's key for it, the bus channel it listens to, and the
 * `channel` of what it sends, however the client spelled its id.
 */
export const formatChannel = (name: ChannelName): string => ('id' in name ? `${name.kind}:${name.id}` : name.kind);

// ---- server → client ---------------------------------------------------------------------------

/** A client's `id`, echoed in the answer to its message. */
type Echo = { id?: string | number };
/** A union's members by their `type`: the map a catalogue lists. */
type ByType<U extends { type: string }> = { [T in U['type']]: Extract<U, { type: T }> };

/** A refused message or subscription, with the REST codes (DESIGN 2.6). */
export type ErrorMessage = { type: 'error'; code: ErrorCode; message: string; channel?: string; details?: ErrorDetails; ts: number } & Echo;
export type PongMessage = { type: 'pong'; ts: number } & Echo;

/**
 * What the game stream sends of a game: its numbered events as the bus carries them, and what a
 * viewer's watch makes itself (src/realtime/gameWatch.ts, gameTicks.ts): `state` first (and
 * after a hole), `time_update` after each move and every 5 s, `game_end` of a finished game.
 */
export type GameStreamEvent =
  | NumberedEvent
  | { type: 'state'; game: GameSnapshot['game']; v: number; ts: number }
  | { type: 'time_update'; times: Times; v: number; ts: number }
  | PresenceNews
  | RematchOffer
  | StreamChat;
/**
 * A chat message (DESIGN 2.11): a spectator-room one to every viewer, a player-room one only to a
 * viewer signed in as a player, live (never replayed). `v` is the viewer's current event number.
 */
export type StreamChat = ChatEvent & { v: number };

/**
 * The TV (DESIGN 2.14), as Lichess's TV feed: `featured` first and whenever the featured game
 * changes (`game_id` null while no game is live), `fen` after each move of it (`wc`, `bc`: the
 * clocks in whole seconds; `last_move` in UCI, null after a takeback).
 */
export type TvFeatured = {
  type: 'featured';
  game_id: string | null;
  players: FeaturedGameView['players'] | null;
  orientation: FeaturedGameView['orientation'];
  fen: string;
  last_move: string | null;
  ts: number;
};
export type TvFen = { type: 'fen'; game_id: string; fen: string; last_move: string | null; wc: number; bc: number; ts: number };
export type TvMessage = TvFeatured | TvFen;

/** A user event the realtime channel relays (the internal ones stay on the bus). */
export type RelayedUserEvent = Exclude<ChannelEvents['user'], { type: InternalUserEventType }>;

/** What a channel of the realtime channel carries, each message with its `channel` put first. */
export type ChannelEvent = {
  game: GameStreamEvent;
  user: RelayedUserEvent;
  tournament: ChannelEvents['tournament'];
  lobby: ChannelEvents['lobby'] | { type: 'seeks'; seeks: SeekView[]; ts: number };
  tv: TvMessage;
};
export type WithChannel<M> = { channel: string } & M;

/** The game stream's messages by name: the game's, then the answers. */
export type StreamMessages = ByType<GameStreamEvent> & { pong: PongMessage; error: ErrorMessage };
/** The realtime channel's by name: the answers to subscribe / unsubscribe / ping, then the channels' messages. */
export type ChannelMessages = {
  subscribed: { type: 'subscribed'; channel: string; ts: number } & Echo;
  unsubscribed: { type: 'unsubscribed'; channel: string; ts: number } & Echo;
  pong: PongMessage;
  error: ErrorMessage;
} & ByType<WithChannel<ChannelEvent[keyof ChannelEvent]>>;

/** The TV feed's over HTTP (`GET /v1/tv/feed`): the `tv` channel's, without `channel`. */
export type FeedMessages = ByType<TvMessage> & { error: ErrorMessage };

export type StreamMessage = StreamMessages[keyof StreamMessages];
export type ChannelMessage = ChannelMessages[keyof ChannelMessages];
export type FeedMessage = FeedMessages[keyof FeedMessages];
/** Every message the stream, the realtime channel and the TV feed send. */
export type ServerMessage = StreamMessage | ChannelMessage | FeedMessage;

declare const carries: unique symbol;
/**
 * The JSON text of a message `M`. A relayed event goes out as the bus gave it, not parsed and
 * written again (one parse per node, no serializing per socket): the text, not the bytes, is typed.
 */
export type Wire<M> = string & { readonly [carries]: M };

/** The one way a message of ours becomes text (its members in the order written). */
export const formatServerMessage = <M extends ServerMessage>(message: M): Wire<M> => JSON.stringify(message) as Wire<M>;

/** An `error` message: its code and words, then what it is about (`extra`, in its order), then `ts`. */
export const errorMessage = (code: ErrorCode, message: string, extra: Pick<ErrorMessage, 'channel' | 'id' | 'details'>, ts: number): ErrorMessage => ({
  type: 'error',
  code,
  message,
  ...extra,
  ts,
});

/** An AppError as an `error` message: with its details, and the channel it ends when it ends one. */
export const formatError = (error: AppError, ts: number, channel?: string): ErrorMessage =>
  errorMessage(error.code, error.message, { ...(error.details ? { details: error.details } : {}), ...(channel ? { channel } : {}) }, ts);

/** Every message name by socket and direction: what the docs' protocol tables must list. */
const names = <M>(present: Record<keyof M, true>) => Object.keys(present) as (keyof M & string)[];
export const REALTIME_MESSAGES = {
  stream: {
    in: STREAM_CLIENT_MESSAGES,
    out: names<StreamMessages>({
      state: true, move: true, time_update: true, draw_offer: true, takeback_offer: true, takeback: true, game_end: true, opponent_gone: true, opponent_back: true,
      rematch_offer: true, chat: true, pong: true, error: true,
    }),
  },
  channel: {
    in: CLIENT_MESSAGES,
    out: names<ChannelMessages>({
      subscribed: true, unsubscribed: true, pong: true, error: true,
      state: true, move: true, time_update: true, draw_offer: true, takeback_offer: true, takeback: true, game_end: true, opponent_gone: true, opponent_back: true,
      rematch_offer: true, chat: true,
      challenge_received: true, challenge_declined: true, challenge_cancelled: true, challenge_expired: true, game_started: true,
      friend_request: true, friend_accepted: true, club_invite: true, tournament_started: true, tournament_pairing: true,
      pairing: true, standings: true, status: true,
      seeks: true, seek_added: true, seek_removed: true,
      featured: true, fen: true,
    }),
  },
  feed: { in: [] as const, out: names<FeedMessages>({ featured: true, fen: true, error: true }) },
} as const;

// ---- close codes -------------------------------------------------------------------------------

/** Close codes of the stream and the realtime channel (docs/protocol.md, Close codes). */
export const CLOSE = {
  /** The game ended (stream), or the client said goodbye. */
  NORMAL: 1000,
  /** Too many messages, or too many malformed ones; a `since` that is no event number. */
  POLICY: 1008,
  /** The game could not be read (to start, or to fill a hole): come back, with `?since`. */
  INTERNAL: 1011,
  /** The service is restarting (SIGTERM): connect again. */
  RESTART: 1012,
  /** The client reads too slowly: its unsent messages passed the bound. */
  TRY_AGAIN_LATER: 1013,
  /** The token given to the stream is invalid, expired or of an ended session. */
  UNAUTHORIZED: 4401,
  /** The game does not exist, or is pending and the caller is not one of its players. */
  NOT_FOUND: 4404,
  /** The token's user already holds REALTIME_SOCKETS_PER_USER sockets on this node. */
  TOO_MANY_SOCKETS: 4429,
} as const;
export type CloseCode = (typeof CLOSE)[keyof typeof CLOSE];
