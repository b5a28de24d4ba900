import { z } from 'zod';
import { maskOffensiveWords } from '../auth/offensiveWords.ts';
import { requiredString } from '../auth/rules.ts';
import { CHAT_ROOMS, type ChatMessageRecord } from '../db/chat.ts';
import { normalizeText, textProblems } from '../domain/text.ts';

/** The schemas of DESIGN 2.11 "Chat": what a message may say, and the message as every reader gets it. */

export { CHAT_ROOMS, type ChatRoom } from '../db/chat.ts';
export const CHAT_TEXT_MAX = 140;
/** What `GET /games/{id}/chat` answers: a room's last messages. */
export const CHAT_HISTORY = 100;
/** A user's messages per room per game. */
export const CHAT_PER_GAME = 30;

/**
 * An emoji sequence is joined by U+200D (a format character, Cf): allowed between two pictographs
 * (👩‍💻), refused anywhere else, where it only hides a word from the list.
 */
const EMOJI_JOINER = /(?<=\p{Extended_Pictographic}\uFE0F?)\u200D(?=\p{Extended_Pictographic})/gu;

/** What is wrong with a message's text once normalised and trimmed (none: it may be sent). */
export function chatTextProblems(text: string): string[] {
  const length = [...text].length;
  if (length < 1 || length > CHAT_TEXT_MAX) return [`must be 1 to ${CHAT_TEXT_MAX} characters once trimmed`];
  return textProblems(text.replace(EMOJI_JOINER, ''), { mixedAlphabets: true });
}

/**
 * A message's text as stored and shown: compatibility forms folded (a styled 𝐟 is an f, so the
 * word list sees it), trimmed, then checked; offensive words come out masked with `*`.
 */
export const ChatText = requiredString()
  // A text far over the limit is refused before any work on it.
  .max(CHAT_TEXT_MAX * 8, `must be 1 to ${CHAT_TEXT_MAX} characters once trimmed`)
  .overwrite((s) => normalizeText(s).trim())
  .superRefine((text, ctx) => {
    for (const message of chatTextProblems(text)) ctx.addIssue({ code: 'custom', message });
  })
  .transform(maskOffensiveWords)
  .meta({
    description: `NFKC-normalised and trimmed, then 1–${CHAT_TEXT_MAX} characters without control or format characters (direction overrides, zero-width characters; an emoji joiner between emoji is fine); offensive words are masked with *`,
  });

const Room = z.enum(CHAT_ROOMS, { error: `must be one of ${CHAT_ROOMS.join(', ')}` });

export const ChatBody = z.object({
  text: ChatText,
  room: Room.meta({ description: 'player: the two players only; spectator: anyone signed in (players only while the game is not active)' }),
});
export type ChatBody = z.infer<typeof ChatBody>;

export const ChatQuery = z.object({ room: Room });
export type ChatQuery = z.infer<typeof ChatQuery>;

export const ChatMessageView = z.object({
  id: z.uuid(),
  room: Room,
  user: z.object({ id: z.uuid(), username: z.string() }),
  text: z.string().meta({ description: 'as stored: trimmed, offensive words masked' }),
  created_at: z.iso.datetime(),
});
export type ChatMessageView = z.infer<typeof ChatMessageView>;

export const ChatMuteView = z.object({
  game_id: z.uuid(),
  muted: z.boolean().meta({ description: "true: the caller no longer receives the opponent's messages in this game" }),
});
export type ChatMuteView = z.infer<typeof ChatMuteView>;

export const formatChatMessage = (m: ChatMessageRecord): ChatMessageView => ({
  id: m.id,
  room: m.room,
  user: { id: m.userId, username: m.username },
  text: m.text,
  created_at: m.createdAt.toISOString(),
});
