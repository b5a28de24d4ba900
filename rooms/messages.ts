import type { Client } from '@colyseus/core';
import { z } from 'zod';
import type { AuthUser } from '../src/auth/scopes.ts';
import type { Color } from '../src/domain/game.ts';
import type { ErrorCode, ErrorDetails } from '../src/errors.ts';
import type { GameEvent } from '../src/domain/liveGameViews.ts';
import {
  GAME_COMMAND_NAMES,
  GAME_COMMANDS,
  requestId,
  type AnswerOf,
  type GameCommandName,
} from '../src/services/gameCommandCatalogue.ts';
import { ChatBody, type ChatMessageView, type ChatRoom } from '../src/services/chatViews.ts';
import type { UserEvent } from '../src/services/channelEvents.ts';
import type { ChallengeView } from '../src/services/seekViews.ts';
import { issuesToDetails } from '../src/util/zod.ts';
import type { PresenceNews, RematchOffer } from '../src/services/channelEvents.ts';

/**
 * The catalogue of what goes over a room's socket, each way, for every room (as lila-ws declares
 * `ClientOut` and `ClientIn`): a client's messages are parsed with the schemas below, a room's are
 * sent through a client typed with its room's map (Colyseus checks `client.send(type, body)` and
 * `broadcast` against it), and the protocol tables in the docs are checked against ROOM_MESSAGES
 * (test/rooms/protocol.test.ts).
 */

// ---- client → server ---------------------------------------------------------------------------

/**
 * A chat message (DESIGN 2.11), from anyone signed in: not a command of the game's actor (the chat
 * service stores it), so it is none of GAME_COMMANDS. The same body as `POST /games/{id}/chat`.
 */
export const ChatMessage = ChatBody.extend({ id: requestId });
export type ChatMessage = z.infer<typeof ChatMessage>;

/**
 * What a player sends a GameRoom, by message name: the game's commands, each declared once with
 * the actor's command it becomes (src/services/gameCommandCatalogue.ts), and `chat`. The lobby,
 * seek-pool and tournament rooms take nothing.
 */
export const GAME_ROOM_REQUESTS = { ...GAME_COMMANDS, chat: { payload: ChatMessage } };
export type GameRequest = keyof typeof GAME_ROOM_REQUESTS;

type Union<M> = { [T in keyof M]: { type: T; body: M[T] } }[keyof M];
export type GameClientMessages = { [N in GameRequest]: z.infer<(typeof GAME_ROOM_REQUESTS)[N]['payload']> };
export type ClientMessage = Union<GameClientMessages>;

/** The `id` of the request answered, when it had one. */
type Echo = { id?: string | number };
/** A refusal, with the REST codes; `details` names the fields of an invalid message. */
export type ErrorBody = Echo & { code: ErrorCode; message: string; details?: ErrorDetails };

/** The `id` a request carries, to echo in its answer (also when the rest of it is invalid). */
export function echoOf(raw: unknown): Echo {
  const id = (raw as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? { id } : {};
}

/** A request its schema refuses, as the `error` that answers it. */
export const invalidMessage = (error: z.ZodError): ErrorBody => ({
  code: 'VALIDATION_ERROR',
  message: 'Invalid message',
  details: issuesToDetails(error.issues),
});

// ---- server → client ---------------------------------------------------------------------------

export type GameEnd = Omit<Extract<GameEvent, { type: 'game_end' }>, 'type' | 'result'> &
  Extract<GameEvent, { type: 'game_end' }>['result'] & { v: number };

type NumberedOf<T extends GameEvent['type']> = Omit<Extract<GameEvent, { type: T }>, 'type'> & { v: number };

/**
 * Who a game room's socket is; `release` ends its user's presence hold (online in friend lists).
 * `playerChat`: a player whose token may read the player chat (DESIGN 2.12: a personal one needs
 * games:read).
 */
export type Seat = { userId?: string; color?: Color; playerChat?: boolean; release?: () => void };
/** A game room's socket: its seat, the caller it authenticated as, and the messages it may be sent. */
export type GameClient = Client<{ userData: Seat; auth: { user?: AuthUser }; messages: GameServerMessages }>;

/** A command's `<name>:ok` carries its answer (the same data as REST's) and the request's `id`. */
export type GameServerMessages = { [N in GameCommandName as `${N}:ok`]: Echo & AnswerOf<N> } & {
  error: ErrorBody;
  /** To everyone in the room, players and spectators, as the game ends. */
  game_end: GameEnd;
  /** DESIGN 2.11: a player who had joined has no client left in the room; the opponent may claim from `claimable_at`. */
  opponent_gone: Omit<Extract<PresenceNews, { type: 'opponent_gone' }>, 'type' | 'ts'>;
  /** The gone player is back: the claim count stops. */
  opponent_back: Omit<Extract<PresenceNews, { type: 'opponent_back' }>, 'type' | 'ts'>;
  /** After the end, while the room lingers: a player asked for a rematch (`game_id`: the new pending game). */
  rematch_offer: Omit<RematchOffer, 'type' | 'ts'>;
  /** The message sent, as stored (trimmed, masked): the REST answer's data, under `message` (its `id` is not the request's). */
  'chat:ok': Echo & { message: ChatMessageView };
  /**
   * A chat message of the game, whoever sent it and wherever (REST, this room, another node): a
   * player-room message to the players' clients only, a spectator-room one to every client; not to
   * a player who muted its sender.
   */
  chat: { room: ChatRoom; message: ChatMessageView };
  /** To everyone in the room: a takeback proposal opened or closed (declined, expired). */
  takeback_offer: NumberedOf<'takeback_offer'>;
  /** To everyone in the room: an accepted takeback, the board as it leaves it. */
  takeback: NumberedOf<'takeback'>;
};
export type LobbyServerMessages = {
  /** The watcher's pending challenges, on join and whenever they change (with a token only). */
  challenges: { challenges: ChallengeView[] };
  /** The user event as it came from the `user:<id>` channel. */
  game_started: Extract<UserEvent, { type: 'game_started' }> & { ts: number };
  error: ErrorBody;
};
export type SeekPoolServerMessages = {
  seeking: { seek_id: string; expires_at: string };
  /** `reservation` (a Colyseus seat reservation) is null when none could be made: join the game by id. */
  paired: { game_id: string; reservation: unknown };
  error: ErrorBody;
};
/** Nobody joins a tournament room: an arena is followed on the realtime channel `tournament:<id>`. */
export type TournamentServerMessages = Record<never, never>;

export type GameServerMessage = Union<GameServerMessages>;
export type LobbyServerMessage = Union<LobbyServerMessages>;
export type SeekPoolServerMessage = Union<SeekPoolServerMessages>;
export type ServerMessage = GameServerMessage | LobbyServerMessage | SeekPoolServerMessage;
/** The body of the server message `T`, whichever room sends it (`error` is the same in all). */
export type ServerBody<T extends ServerMessage['type']> = (GameServerMessages & LobbyServerMessages & SeekPoolServerMessages)[T];

/** Every message name by room and direction: what the docs' protocol tables must list. */
const names = <M>(present: Record<keyof M, true>) => Object.keys(present) as (keyof M & string)[];
export const ROOM_MESSAGES = {
  game: {
    in: Object.keys(GAME_ROOM_REQUESTS) as GameRequest[],
    out: [
      ...GAME_COMMAND_NAMES.map((name) => `${name}:ok` as const),
      ...names<Omit<GameServerMessages, `${GameCommandName}:ok`>>({
        error: true, game_end: true, opponent_gone: true, opponent_back: true, rematch_offer: true, 'chat:ok': true, chat: true,
        takeback_offer: true, takeback: true,
      }),
    ],
  },
  lobby: { in: [], out: names<LobbyServerMessages>({ challenges: true, game_started: true, error: true }) },
  seek_pool: { in: [], out: names<SeekPoolServerMessages>({ seeking: true, paired: true, error: true }) },
  tournament: { in: [], out: names<TournamentServerMessages>({}) },
} as const;

/**
 * Every room's answer to a message type it does not take (`onMessage('*', …)`), with the error
 * its frame guard gives junk frames (rooms/frames.ts).
 */
export function refuseUnknownMessage(client: Client<{ messages: { error: ErrorBody } }>, type: string | number): void {
  client.send('error', { code: 'VALIDATION_ERROR', message: `Unknown message type ${String(type).slice(0, 40)}` });
}
