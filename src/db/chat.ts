import type { Queryable } from './pool.ts';

// Game chat (migration 023): messages per game and room, and the players who muted a game's chat.

export const CHAT_ROOMS = ['player', 'spectator'] as const;
export type ChatRoom = (typeof CHAT_ROOMS)[number];

export type ChatMessageRecord = {
  id: string;
  room: ChatRoom;
  userId: string;
  username: string;
  text: string;
  createdAt: Date;
};

export type NewChatMessage = { id: string; gameId: string; room: ChatRoom; userId: string; text: string; createdAt: Date };

/**
 * Stores a message as its sender's next in that room of that game, unless it would be past `cap`:
 * undefined then. A send that races another of the same sender for the same number (the unique
 * index) reads again and tries the next one; each try that loses, another send won.
 */
export async function insertChatMessage(db: Queryable, m: NewChatMessage, cap: number): Promise<ChatMessageRecord | undefined> {
  for (;;) {
    const { rows } = await db.query(
      `WITH sent AS (
         SELECT coalesce(max(n), 0) AS n FROM game_chat_messages WHERE game_id = $2 AND room = $3 AND user_id = $4
       ), added AS (
         INSERT INTO game_chat_messages (id, game_id, room, user_id, n, text, created_at)
         SELECT $1, $2, $3, $4, sent.n + 1, $5, $6 FROM sent WHERE sent.n < $7
         ON CONFLICT (game_id, room, user_id, n) DO NOTHING
         RETURNING id
       )
       SELECT (SELECT n FROM sent) AS sent, (SELECT id FROM added) AS id, (SELECT username FROM users WHERE id = $4) AS username`,
      [m.id, m.gameId, m.room, m.userId, m.text, m.createdAt, cap],
    );
    const row = rows[0] as { sent: number; id: string | null; username: string };
    if (row.id) return { id: m.id, room: m.room, userId: m.userId, username: row.username, text: m.text, createdAt: m.createdAt };
    if (row.sent >= cap) return undefined;
  }
}

/**
 * The last `limit` messages of a room, oldest first; `hiddenSender`'s are left out (the opponent of
 * a player who muted the game).
 */
export async function listChatMessages(
  db: Queryable,
  gameId: string,
  room: ChatRoom,
  limit: number,
  hiddenSender: string | undefined,
): Promise<ChatMessageRecord[]> {
  const { rows } = await db.query(
    `SELECT m.id, m.room, m.user_id, u.username, m.text, m.created_at
       FROM game_chat_messages m JOIN users u ON u.id = m.user_id
      WHERE m.game_id = $1 AND m.room = $2 AND ($4::uuid IS NULL OR m.user_id <> $4)
      ORDER BY m.seq DESC LIMIT $3`,
    [gameId, room, limit, hiddenSender ?? null],
  );
  return rows.reverse().map((r) => ({ id: r.id, room: r.room, userId: r.user_id, username: r.username, text: r.text, createdAt: r.created_at }));
}

/** The players of the game who muted its chat. */
export async function findChatMutes(db: Queryable, gameId: string): Promise<string[]> {
  const { rows } = await db.query('SELECT user_id FROM game_chat_mutes WHERE game_id = $1', [gameId]);
  return rows.map((r) => r.user_id as string);
}

export async function insertChatMute(db: Queryable, gameId: string, userId: string, at: Date): Promise<void> {
  await db.query('INSERT INTO game_chat_mutes (game_id, user_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [gameId, userId, at]);
}

export async function deleteChatMute(db: Queryable, gameId: string, userId: string): Promise<void> {
  await db.query('DELETE FROM game_chat_mutes WHERE game_id = $1 AND user_id = $2', [gameId, userId]);
}
