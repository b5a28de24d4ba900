import { z } from 'zod';
import { ChatBody, ChatMessageView, ChatMuteView, ChatQuery, CHAT_HISTORY, CHAT_PER_GAME, CHAT_TEXT_MAX } from '../../services/chatViews.ts';
import type { Services } from '../../services/index.ts';
import { route, type Route } from '../route.ts';

const TAGS = ['Games'];

/** DESIGN 2.11 "Chat": each game's player room (its two players) and spectator room (anyone signed in). */
export function chatRoutes({ chat }: Services): Route[] {
  return [
    route({
      method: 'post',
      path: '/games/:id/chat',
      operationId: 'sendChat',
      ids: { id: 'GAME_NOT_FOUND' },
      summary: 'Send a chat message to the player or the spectator room of a game',
      description:
        `Text is NFKC-normalised and trimmed, then 1–${CHAT_TEXT_MAX} characters with no control or format characters; ` +
        'offensive words are masked with `*`. Only the players write in the player room (403 `NOT_A_PLAYER`); a player ' +
        'may not write in the spectator room while the game is active (403 `FORBIDDEN`). A user sends at most one ' +
        `message a second (three at once) and ${CHAT_PER_GAME} per game in each room (429 \`RATE_LIMIT_EXCEEDED\`). ` +
        'The message goes live as `chat {room, message}` to the game room and streams: a player-room message only to ' +
        'the players.',
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      limit: 'chat',
      status: 201,
      body: ChatBody,
      response: ChatMessageView,
      errors: ['GAME_NOT_FOUND', 'NOT_A_PLAYER', 'FORBIDDEN'],
      handler: ({ user, params, body }) => chat.post(user!.id, params.id, body),
    }),
    route({
      method: 'get',
      path: '/games/:id/chat',
      operationId: 'listChat',
      ids: { id: 'GAME_NOT_FOUND' },
      summary: `Read the last ${CHAT_HISTORY} messages of a chat room, oldest first`,
      description: "The player room is the players' only (403 `NOT_A_PLAYER`). A player who muted the game does not see the opponent's messages.",
      tags: TAGS,
      scope: 'games:read',
      auth: 'required',
      query: ChatQuery,
      response: z.array(ChatMessageView),
      errors: ['GAME_NOT_FOUND', 'NOT_A_PLAYER'],
      handler: ({ user, params, query }) => chat.list(user!.id, params.id, query.room),
    }),
    route({
      method: 'post',
      path: '/games/:id/chat/mute',
      operationId: 'muteChat',
      ids: { id: 'GAME_NOT_FOUND' },
      summary: "Mute the opponent in this game's chat (a player): their messages no longer reach you, live or read",
      description: 'For this game only, in both rooms. The opponent is not told: their messages still show to them as sent.',
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      response: ChatMuteView,
      errors: ['GAME_NOT_FOUND', 'NOT_A_PLAYER'],
      handler: ({ user, params }) => chat.mute(user!.id, params.id, true),
    }),
    route({
      method: 'delete',
      path: '/games/:id/chat/mute',
      operationId: 'unmuteChat',
      ids: { id: 'GAME_NOT_FOUND' },
      summary: "Unmute the opponent in this game's chat (a player)",
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      response: ChatMuteView,
      errors: ['GAME_NOT_FOUND', 'NOT_A_PLAYER'],
      handler: ({ user, params }) => chat.mute(user!.id, params.id, false),
    }),
  ];
}
