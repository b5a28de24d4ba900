import { isAppError } from '../src/errors.ts';
import type { RoomChatEvent } from '../src/services/channelEvents.ts';
import type { Chat } from '../src/services/chat.ts';
import { ChatMessage, echoOf, invalidMessage, type GameClient } from './messages.ts';

/**
 * The chat of one game's room (DESIGN 2.11). It listens to the game's `chat:<id>` channel only
 * while the room has clients (a game played over REST holds no subscription; the game's actor
 * holds nothing of chat) and tells each message to the clients that may read it: a player-room
 * one to the clients that joined with a player's token (a personal one with games:read), a spectator-room one to all, neither to a
 * player who muted its sender. A `chat` a client sends is stored and published by the chat service
 * as a REST one is; the sender hears it back from the channel like everyone else.
 */
export class GameRoomChat {
  private listening: Promise<() => void> | undefined;

  constructor(
    private readonly chat: Pick<Chat, 'post' | 'listen'>,
    private readonly gameId: string,
    private readonly clients: () => readonly GameClient[],
  ) {}

  /** Resolves once the room hears the game's chat (or could not: presence away; the next join tries again). */
  async listen(): Promise<void> {
    if (!this.listening) {
      const listening = (this.listening = this.chat.listen(this.gameId, (event) => this.tell(event)));
      listening.catch(() => this.listening === listening && (this.listening = undefined));
    }
    await this.listening.catch(() => {});
  }

  stop(): void {
    const listening = this.listening;
    this.listening = undefined;
    void listening?.then((stop) => stop()).catch(() => {});
  }

  /** A client's `chat {text, room, id?}`: answered `chat:ok {id?, message}` or `error` with the REST codes. */
  async receive(client: GameClient, raw: unknown, spend: () => boolean): Promise<void> {
    const replyId = echoOf(raw);
    const userId = client.userData?.userId;
    if (!userId) return client.send('error', { ...replyId, code: 'UNAUTHORIZED', message: 'Join with an access token to chat' });
    if (!spend()) return client.send('error', { ...replyId, code: 'RATE_LIMIT_EXCEEDED', message: 'Too many messages' });
    const parsed = ChatMessage.safeParse(raw ?? {});
    if (!parsed.success) return client.send('error', { ...replyId, ...invalidMessage(parsed.error) });
    try {
      const message = await this.chat.post(userId, this.gameId, { text: parsed.data.text, room: parsed.data.room });
      client.send('chat:ok', { ...replyId, message });
    } catch (error) {
      // Not stored (the database out of reach): the client may send it again.
      if (!isAppError(error)) return client.send('error', { ...replyId, code: 'SERVICE_UNAVAILABLE', message: 'The message could not be stored; try again' });
      client.send('error', { ...replyId, code: error.code, message: error.message, details: error.details });
    }
  }

  private tell(event: RoomChatEvent): void {
    const body = { room: event.room, message: event.message };
    for (const client of this.clients()) {
      const seat = client.userData;
      if (event.room === 'player' && !seat?.playerChat) continue;
      if (seat?.userId && event.hidden_from.includes(seat.userId)) continue;
      client.send('chat', body);
    }
  }
}
