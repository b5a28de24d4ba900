// Game chat (DESIGN 2.11): a player room and a spectator room per game, durable in PostgreSQL,
// told live on the event bus. Nothing of it runs in the game's actor: a move costs the same with
// or without chat; a player's message only tells the game that its writer is present (claims).
import { randomUUID } from 'node:crypto';
import { BurstyRateLimiter, RateLimiterRes } from 'rate-limiter-flexible';
import type { AppContext } from '../context.ts';
import { deleteChatMute, findChatMutes, insertChatMessage, insertChatMute, listChatMessages, type ChatRoom } from '../db/chat.ts';
import type { GameRecord } from '../db/games.ts';
import { AppError, isAppError } from '../errors.ts';
import { findVisible, isPlayer } from './gameAccess.ts';
import { noteChat } from './gameCommands.ts';
import { bind } from './bind.ts';
import { channels, type RoomChatEvent } from './channelEvents.ts';
import { CHAT_HISTORY, CHAT_PER_GAME, formatChatMessage, type ChatBody, type ChatMessageView, type ChatMuteView } from './chatViews.ts';

/**
 * A user's pace, whatever game or room they write in: one message a second, and two more within
 * any 10 s (BurstyRateLimiter: the second counter is used only when the first refuses), so three
 * may go at once and no more than 1.2 a second on average.
 */
const PER_SECOND = { points: 1, seconds: 1 };
const BURST = { points: 2, seconds: 10 };

/** What the chat use cases work with: the context's parts and the users' pace (made once, from the limiter factory). */
export type ChatDeps = Pick<AppContext, 'pool' | 'config' | 'log' | 'clock' | 'events' | 'limits'> & { pace: BurstyRateLimiter };

/** The game as the caller may use its `room`: GAME_NOT_FOUND, or NOT_A_PLAYER for another's player room. */
async function gameFor(d: ChatDeps, userId: string, gameId: string, room: ChatRoom): Promise<GameRecord> {
  const game = await findVisible(d, userId, gameId);
  if (room === 'player' && !isPlayer(game, userId)) throw new AppError('NOT_A_PLAYER', 'Only the players read and write the player chat');
  return game;
}

async function keepPace(d: ChatDeps, userId: string): Promise<void> {
  if (!d.limits.enabled) return;
  try {
    await d.pace.consume(`u:${userId}`);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    throw new AppError('RATE_LIMIT_EXCEEDED', 'At most one chat message a second (three at once)', undefined, {
      retryAfter: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
    });
  }
}

export type PostOptions = {
  /**
   * A player may write to the spectators during the game (Lichess's API, DESIGN 2.13: lichess-bot
   * greets the spectators as it makes its first move, and a refusal stops it there).
   */
  playerToSpectators?: boolean;
};

/** Stores and tells a message; its answer is the message as every reader gets it. */
export async function post(d: ChatDeps, userId: string, gameId: string, body: ChatBody, o: PostOptions = {}): Promise<ChatMessageView> {
  const game = await gameFor(d, userId, gameId, body.room);
  const player = isPlayer(game, userId);
  if (body.room === 'spectator' && player && game.status === 'active' && !o.playerToSpectators) {
    throw new AppError('FORBIDDEN', 'Players may not write in the spectator chat while the game is on');
  }
  await keepPace(d, userId);
  const now = d.clock.now();
  const stored = await insertChatMessage(d.pool, { id: randomUUID(), gameId: game.id, room: body.room, userId, text: body.text, createdAt: new Date(now) }, CHAT_PER_GAME);
  if (!stored) {
    throw new AppError('RATE_LIMIT_EXCEEDED', `At most ${CHAT_PER_GAME} messages per game in each room`, { room: [`at most ${CHAT_PER_GAME} messages per game`] });
  }
  const message = formatChatMessage(stored);
  // Only a player's opponent can have muted them.
  const hidden = player ? (await findChatMutes(d.pool, game.id)).filter((id) => id !== userId) : [];
  d.events.publish(channels.chat(game.id), { type: 'chat', room: body.room, message, hidden_from: hidden, ts: now });
  if (body.room === 'spectator') d.events.publish(channels.game(game.id), { type: 'chat', room: 'spectator', message, ts: now });
  // A player who writes is present (DESIGN 2.11): the game, which judges claims, hears it
  // before the answer, so a claim sent after it is judged with it.
  if (player) {
    await noteChat(game, userId, now).catch((err) => {
      if (!(isAppError(err) && err.code === 'GAME_NOT_ACTIVE')) d.log.warn({ err, gameId: game.id }, 'the game did not hear a chat message');
    });
  }
  return message;
}

/** The room's last messages, oldest first; a player who muted the game does not see the opponent's. */
export async function list(d: ChatDeps, userId: string, gameId: string, room: ChatRoom): Promise<ChatMessageView[]> {
  const game = await gameFor(d, userId, gameId, room);
  let hiddenSender: string | undefined;
  if (isPlayer(game, userId) && (await findChatMutes(d.pool, game.id)).includes(userId)) {
    hiddenSender = (game.whiteId === userId ? game.blackId : game.whiteId) ?? undefined;
  }
  return (await listChatMessages(d.pool, game.id, room, CHAT_HISTORY, hiddenSender)).map(formatChatMessage);
}

/** A player stops (or starts again) receiving the opponent's messages in this game. */
export async function mute(d: ChatDeps, userId: string, gameId: string, muted: boolean): Promise<ChatMuteView> {
  const game = await findVisible(d, userId, gameId);
  if (!isPlayer(game, userId)) throw new AppError('NOT_A_PLAYER', 'Only a player mutes the opponent');
  if (muted) await insertChatMute(d.pool, game.id, userId, new Date(d.clock.now()));
  else await deleteChatMute(d.pool, game.id, userId);
  return { game_id: game.id, muted };
}

/** Both rooms' messages of a game as published (the game's room listens while it has clients). */
export const listen = (d: Pick<ChatDeps, 'events'>, gameId: string, listener: (event: RoomChatEvent) => void) =>
  d.events.subscribe(channels.chat(gameId), listener);

export type Chat = ReturnType<typeof createChat>;

export function createChat(ctx: Omit<ChatDeps, 'pace'> & Pick<AppContext, 'makeLimiter'>) {
  const pace = new BurstyRateLimiter(
    ctx.makeLimiter('chat-pace', PER_SECOND.points, PER_SECOND.seconds),
    ctx.makeLimiter('chat-burst', BURST.points, BURST.seconds),
  );
  const d: ChatDeps = { pool: ctx.pool, config: ctx.config, log: ctx.log, clock: ctx.clock, events: ctx.events, limits: ctx.limits, pace };
  return bind(d, { post, list, mute, listen });
}
