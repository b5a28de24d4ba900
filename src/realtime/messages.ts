import { z } from 'zod';
import { parseId } from '../domain/ids.ts';
import type { NumberedEvent, Times } from '../domain/liveGameViews.ts';
import type { ErrorCode, ErrorDetails } from '../errors.ts';
import type { ChannelEvents, ChatEvent, PresenceNews, RematchOffer } from '../services/channelEvents.ts';
import type { GameSnapshot } from '../services/games.ts';
import type { SeekView } from '../services/seekViews.ts';
import type { InternalUserEventType } from '../services/userEvents.ts';
import { err, ok, type Failure, type Result } from '../result.ts';
import { issuesToDetails } from '../util/zod.ts';

// ---- client → server ---------------------------------------------------------------------------

/** What a client may send on the realtime channel (and `ping` on the stream), DESIGN 2.6. */
const Id = z.union([z.string().max(64), z.number()]).optional();
const Channel = z.string().min(1).max(100);
export const ClientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('subscribe'), channel: Channel, token: z.string().max(4096).optional(), id: Id }),
  z.object({ type: z.literal('unsubscribe'), channel: Channel, id: Id }),
  z.object({ type: z.literal('ping'), id: Id }),
]);
export type ClientMessage = z.infer<typeof ClientMessage>;

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
 * The channels of DESIGN 2.6 and 2.10: a game's events, a user's own personal events, the open
 * seeks, an arena's pairings and standings.
 */
export type ChannelName = { kind: 'game' | 'user' | 'tournament'; id: string } | { kind: 'lobby' };

/** A channel as the client named it, its id parsed (lower-cased); undefined when it is none. */
export function parseChannel(channel: string): ChannelName | undefined {
  if (channel === 'lobby') return { kind: 'lobby' };
  const m = /^(game|user|tournament):(.+)$/.exec(channel);
  const id = m && parseId(m[2]);
  if (!m || !id) return undefined;
  return { kind: m[1] as 'game' | 'user' | 'tournament', id };
}

/**
 * The channel's one name: the socket's key for it, the bus channel it listens to, and the
 * `channel` of what it sends, however the client spelled its id.
 */
export const formatChannel = (name: ChannelName): string => (name.kind === 'lobby' ? 'lobby' : `${name.kind}:${name.id}`);

// ---- server → client ---------------------------------------------------------------------------

/** A client's `id`, echoed in the answer to its message. */
type Echo = { id?: string | number };

/** A refused message or subscription, with the REST codes (DESIGN 2.6). */
export type ErrorMessage = { type: 'error'; code: ErrorCode; message: string; channel?: string; details?: ErrorDetails; ts: number } & Echo;
export type PongMessage = { type: 'pong'; ts: number } & Echo;

/**
 * What the game stream sends: the game's numbered events as the bus carries them, and what a
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
export type StreamMessage = GameStreamEvent | PongMessage | ErrorMessage;

/** A user event the realtime channel relays (the internal ones stay on the bus). */
export type RelayedUserEvent = Exclude<ChannelEvents['user'], { type: InternalUserEventType }>;

/** What a channel of the realtime channel carries, each message with its `channel` put first. */
export type ChannelEvent = {
  game: GameStreamEvent;
  user: RelayedUserEvent;
  tournament: ChannelEvents['tournament'];
  lobby: ChannelEvents['lobby'] | { type: 'seeks'; seeks: SeekView[]; ts: number };
};
export type WithChannel<M> = { channel: string } & M;

/** What the realtime channel sends: the answers to subscribe / unsubscribe / ping, then the channels' messages. */
export type ChannelMessage =
  | ({ type: 'subscribed'; channel: string; ts: number } & Echo)
  | ({ type: 'unsubscribed'; channel: string; ts: number } & Echo)
  | PongMessage
  | ErrorMessage
  | WithChannel<ChannelEvent[keyof ChannelEvent]>;

/** Every message the stream and the realtime channel send. */
export type ServerMessage = StreamMessage | ChannelMessage;

declare const carries: unique symbol;
/**
 * The JSON text of a message `M`. A relayed event goes out as the bus gave it, not parsed and
 * written again (one parse per node, no serializing per socket): the text, not the bytes, is typed.
 */
export type Wire<M> = string & { readonly [carries]: M };

/** The one way a message of ours becomes text (its members in the order written). */
export const formatServerMessage = <M extends ServerMessage>(message: M): Wire<M> => JSON.stringify(message) as Wire<M>;

/** Every message name by socket: what the protocol tables in docs/protocol.md must list (test/realtime/protocol.test.ts). */
export const SERVER_MESSAGES = {
  stream: names<StreamMessage>({
    state: true, move: true, time_update: true, draw_offer: true, takeback_offer: true, takeback: true, game_end: true, opponent_gone: true, opponent_back: true,
    rematch_offer: true, chat: true, pong: true, error: true,
  }),
  channel: names<ChannelMessage>({
    subscribed: true,
    unsubscribed: true,
    pong: true,
    error: true,
    state: true,
    move: true,
    time_update: true,
    draw_offer: true,
    takeback_offer: true,
    takeback: true,
    game_end: true,
    opponent_gone: true,
    opponent_back: true,
    rematch_offer: true,
    chat: true,
    challenge_received: true,
    challenge_declined: true,
    challenge_cancelled: true,
    challenge_expired: true,
    game_started: true,
    friend_request: true,
    friend_accepted: true,
    club_invite: true,
    tournament_started: true,
    tournament_pairing: true,
    pairing: true,
    standings: true,
    status: true,
    seeks: true,
    seek_added: true,
    seek_removed: true,
  }),
} as const;

/** The names of a union's `type`s, each listed once and none missing (the compiler checks both). */
function names<M extends { type: string }>(present: Record<M['type'], true>): M['type'][] {
  return Object.keys(present) as M['type'][];
}
