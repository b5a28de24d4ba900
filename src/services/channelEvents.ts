import type { Channel } from '../events.ts';
import type { NumberedEvent } from '../domain/liveGameViews.ts';
import type { PresenceEvent } from '../domain/gameDecider.ts';
import type { LobbyEvent } from './seekViews.ts';
import type { TournamentEvent } from './tournamentViews.ts';
import type { ChatMessageView, ChatRoom } from './chatViews.ts';
import type { DeclineReason } from '../domain/statuses.ts';

/**
 * The event bus's channels (src/events.ts) and what each carries, by channel family: a game's
 * events (DESIGN 2.6), a user's personal ones, an arena's pairings and standings (DESIGN 2.10),
 * the open seeks appearing and going. Every event carries `type` and `ts` (Unix ms).
 */
export type ChannelEvents = {
  game: NumberedEvent | GameStatusEvent | RematchOffer | PresenceNews | SpectatorChatEvent;
  chat: RoomChatEvent;
  user: Stamped<UserEvent>;
  tournament: Stamped<TournamentEvent>;
  lobby: Stamped<LobbyEvent>;
};

export const channels = {
  game: (gameId: string) => `game:${gameId}` as Channel<ChannelEvents['game']>,
  chat: (gameId: string) => `chat:${gameId}` as Channel<ChannelEvents['chat']>,
  user: (userId: string) => `user:${userId}` as Channel<ChannelEvents['user']>,
  tournament: (tournamentId: string) => `tournament:${tournamentId}` as Channel<ChannelEvents['tournament']>,
  lobby: 'lobby:seeks' as Channel<ChannelEvents['lobby']>,
} as const;

type Stamped<Event> = Event & { ts: number };

/**
 * A pending game became active (accepted, paired) or was abandoned (declined, cancelled, expired):
 * not numbered, as the game's events begin with its room.
 */
export type GameStatusEvent = { type: 'status'; status: 'active' | 'abandoned'; ts: number };

/**
 * DESIGN 2.11: a player of the finished game asked for a rematch (`game_id`: the new pending
 * game). Not numbered: the finished game's events have ended. A stream still open and the room,
 * while it lingers after the end, pass it on.
 */
/**
 * DESIGN 2.11: a player left the room or came back (the claim count). Like `time_update` it
 * carries the game's current `v` without advancing it and is not kept in the replay buffer.
 */
export type PresenceNews = PresenceEvent & { v: number; ts: number };

export type RematchOffer = { type: 'rematch_offer'; game_id: string; offered_by: string; ts: number };

/** A chat message of a game (DESIGN 2.11), as its readers get it. Not numbered: chat is no game event. */
export type ChatEvent = { type: 'chat'; room: ChatRoom; message: ChatMessageView; ts: number };
/**
 * A spectator-room message on `game:<id>`, for every watcher of the game (stream and realtime
 * sockets already listen there). Never kept in the replay buffer, which holds numbered events only.
 */
export type SpectatorChatEvent = ChatEvent & { room: 'spectator' };
/**
 * Both rooms' messages on `chat:<id>`, which only the game's room and its players' sockets listen
 * to: a player-room message is published nowhere else. `hidden_from`: the players who muted the
 * sender (the sender's opponent, when they muted the game); each listener leaves them out, and the
 * list itself is never sent to a socket.
 */
export type RoomChatEvent = ChatEvent & { hidden_from: string[] };

type Who = { id: string; username: string };

/**
 * Personal events, published on the `user:<id>` channel of every node (DESIGN 2.6): the realtime
 * channel relays them to the user's sockets (with `channel`), the lobby room reacts to some. Each
 * carries `type` and `ts`. Published with `userNotifier`
 * (src/services/userEvents.ts).
 */
export type UserEvent =
  | { type: 'challenge_received'; game_id: string; from: Who }
  /** `reason`: when the challenged player gave one (Lichess's decline, DESIGN 2.13). */
  | { type: 'challenge_declined'; game_id: string; by: Who; reason?: DeclineReason }
  | { type: 'challenge_cancelled'; game_id: string; by: Who }
  | { type: 'challenge_expired'; game_id: string }
  /** DESIGN 2.11: the opponent of a finished game asks for a rematch (a challenge, `game_id`; `rematch_of`: the finished game). */
  | { type: 'rematch_offer'; game_id: string; rematch_of: string; from: Who }
  /** A challenge was accepted or a seek paired: the game is on (`seek_id` when it came from that seek). */
  | { type: 'game_started'; game_id: string; seek_id?: string }
  /** DESIGN 2.10: someone asked to be the user's friend / accepted the user's request. */
  | { type: 'friend_request'; from: Who }
  | { type: 'friend_accepted'; user: Who }
  /** DESIGN 2.10: the owner of a club invited the user. */
  | { type: 'club_invite'; club: { id: string; name: string }; invited_by: Who }
  /** DESIGN 2.10: a tournament the user joined started. */
  | { type: 'tournament_started'; tournament: { id: string; name: string; starts_at: string } }
  /** DESIGN 2.10: the user was paired in a tournament; the game is active, both seated: join it. */
  | { type: 'tournament_pairing'; tournament_id: string; game_id: string; color: 'white' | 'black'; opponent: Who }
  /** The lobby room reloads the user's pending challenges on this. */
  | { type: 'challenges_changed' }
  /** A game of the user ended (finished or aborted): Lichess's event stream says `gameFinish` (DESIGN 2.13). */
  | { type: 'game_finished'; game_id: string };
