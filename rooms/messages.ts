import type { Client } from '@colyseus/core';
import { z } from 'zod';
import type { AuthUser } from '../src/auth/scopes.ts';
import type { Color } from '../src/domain/game.ts';
import type { ErrorCode, ErrorDetails } from '../src/errors.ts';
import type { GameEvent } from '../src/domain/liveGameViews.ts';
import type { CommandAnswers } from '../src/services/gameViews.ts';
import { ChatBody, type ChatMessageView, type ChatRoom } from '../src/services/chatViews.ts';
import type { UserEvent } from '../src/services/channelEvents.ts';
import type { ChallengeView } from '../src/services/seekViews.ts';
import { CLAIM_RESULTS } from '../src/domain/gameDecider.ts';
import type { PresenceNews, RematchOffer } from '../src/services/channelEvents.ts';

/**
 * The catalogue of what goes over a room's socket, each way, for every room (as lila-ws declares
 * `ClientOut` and `ClientIn`): a client's messages are parsed with the schemas below, a room's are
 * sent through a client typed with its room's map (Colyseus checks `client.send(type, body)` and
 * `broadcast` against it), and the protocol tables in the docs are checked against ROOM_MESSAGES
 * (test/rooms/protocol.test.ts).
 */

// ---- client → server ---------------------------------------------------------------------------

const square = z.string().regex(/^[a-h][1-8]$/, 'must be a square like e4');
/** Any command may carry an `id`, echoed in its answer; it also makes a resent command safe. */
const requestId = z.union([z.string().max(64), z.number().int()]).optional();

export const MoveMessage = z.object({
  from: square,
  to: square,
  promotion: z.enum(['q', 'r', 'b', 'n']).nullish(),
  /** The client's measured network lag (ms), compensated within Lichess's quota. */
  lag: z.number().min(0).max(60_000).optional(),
  id: requestId,
});
export type MoveMessage = z.infer<typeof MoveMessage>;

export const BareMessage = z.object({ id: requestId }).optional();

export const AnswerDrawMessage = z.object({
  offer_id: z.string().max(64),
  accept: z.boolean(),
  id: requestId,
});
export type AnswerDrawMessage = z.infer<typeof AnswerDrawMessage>;

export const ClaimMessage = z.object({
  result: z.enum(CLAIM_RESULTS),
  id: requestId,
});
export type ClaimMessage = z.infer<typeof ClaimMessage>;

export const AnswerTakebackMessage = z.object({
  takeback_id: z.string().max(64),
  accept: z.boolean(),
  id: requestId,
});
export type AnswerTakebackMessage = z.infer<typeof AnswerTakebackMessage>;

/** What a player sends to a GameRoom; the lobby, seek-pool and tournament rooms take nothing. */
export const GAME_COMMANDS = ['move', 'resign', 'offer_draw', 'answer_draw', 'abort', 'claim', 'takeback', 'answer_takeback'] as const;
export type GameCommand = (typeof GAME_COMMANDS)[number];
export const GameCommandSchemas = {
  move: MoveMessage,
  resign: BareMessage,
  offer_draw: BareMessage,
  answer_draw: AnswerDrawMessage,
  abort: BareMessage,
  claim: ClaimMessage,
  takeback: BareMessage,
  answer_takeback: AnswerTakebackMessage,
} as const satisfies Record<GameCommand, z.ZodType>;

/**
 * A chat message (DESIGN 2.11), from anyone signed in: not a command of the game's actor, so it
 * is none of GAME_COMMANDS. The same body as `POST /games/{id}/chat`.
 */
export const ChatMessage = ChatBody.extend({ id: requestId });
export type ChatMessage = z.infer<typeof ChatMessage>;

type Union<M> = { [T in keyof M]: { type: T; body: M[T] } }[keyof M];
export type GameClientMessages = { [C in GameCommand]: z.infer<(typeof GameCommandSchemas)[C]> } & { chat: ChatMessage };
export type ClientMessage = Union<GameClientMessages>;

// ---- server → client ---------------------------------------------------------------------------

/** The `id` of the command answered, when it had one. */
type Echo = { id?: string | number };
/** A refusal, with the REST codes; `details` names the fields of an invalid message. */
export type ErrorBody = Echo & { code: ErrorCode; message: string; details?: ErrorDetails };

/** What a command's `<name>:ok` carries besides `id`: the same data as the REST answer. */
export type { CommandAnswers };
export type GameEnd = Omit<Extract<GameEvent, { type: 'game_end' }>, 'type' | 'result'> &
  Extract<GameEvent, { type: 'game_end' }>['result'] & { v: number };

/** The live game's command behind each socket message (the room's names follow DESIGN 2.11's). */
export const COMMAND_OF = {
  move: 'move',
  resign: 'resign',
  offer_draw: 'offer_draw',
  answer_draw: 'answer_draw',
  abort: 'abort',
  claim: 'claim',
  takeback: 'offer_takeback',
  answer_takeback: 'answer_takeback',
} as const satisfies Record<GameCommand, keyof CommandAnswers>;
type NumberedOf<T extends GameEvent['type']> = Omit<Extract<GameEvent, { type: T }>, 'type'> & { v: number };

/**
 * Who a game room's socket is; `release` ends its user's presence hold (online in friend lists).
 * `playerChat`: a player whose token may read the player chat (DESIGN 2.12: a personal one needs
 * games:read).
 */
export type Seat = { userId?: string; color?: Color; playerChat?: boolean; release?: () => void };
/** A game room's socket: its seat, the caller it authenticated as, and the messages it may be sent. */
export type GameClient = Client<{ userData: Seat; auth: { user?: AuthUser }; messages: GameServerMessages }>;

export type GameServerMessages = { [C in GameCommand as `${C}:ok`]: Echo & CommandAnswers[(typeof COMMAND_OF)[C]] } & {
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
    in: [...GAME_COMMANDS, 'chat'],
    out: names<GameServerMessages>({
      'move:ok': true, 'resign:ok': true, 'offer_draw:ok': true, 'answer_draw:ok': true, 'abort:ok': true, 'claim:ok': true,
      error: true, game_end: true, opponent_gone: true, opponent_back: true, rematch_offer: true, 'chat:ok': true, chat: true,
      'takeback:ok': true, 'answer_takeback:ok': true, takeback_offer: true, takeback: true,
    }),
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
