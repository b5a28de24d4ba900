import type { Queryable } from './pool.ts';

/**
 * Sessions and their refresh tokens. A session is one login on one device; its access tokens
 * carry its id (`sid`), so revoking the row ends every token of it at once.
 */

export type RevokeReason = 'logout' | 'refresh_reuse' | 'password_change';
export type LiveSession = { sessionId: string; userId: string; email: string };

export async function insertSession(db: Queryable, userId: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>('INSERT INTO sessions (user_id) VALUES ($1) RETURNING id', [userId]);
  return rows[0].id;
}

/**
 * The session, if it exists, is not revoked and is younger than `maxAgeSeconds` (its absolute
 * lifetime: refreshing does not extend it), with its user's current email and when it began.
 * A named statement: it runs for every authenticated request the session cache cannot answer,
 * and a prepared plan spares PostgreSQL the parse and plan of the join each time.
 */
export async function findLiveSession(
  db: Queryable,
  sessionId: string,
  maxAgeSeconds: number,
): Promise<(LiveSession & { createdAt: Date }) | undefined> {
  const { rows } = await db.query<{ id: string; user_id: string; email: string; created_at: Date }>({
    name: 'find-live-session',
    text: `SELECT s.id, s.user_id, u.email, s.created_at FROM sessions s JOIN users u ON u.id = s.user_id
            WHERE s.id = $1 AND s.revoked_at IS NULL AND s.created_at > now() - make_interval(secs => $2)`,
    values: [sessionId, maxAgeSeconds],
  });
  return rows[0] && { sessionId: rows[0].id, userId: rows[0].user_id, email: rows[0].email, createdAt: rows[0].created_at };
}

export async function revokeSession(db: Queryable, sessionId: string, reason: RevokeReason): Promise<void> {
  await db.query('UPDATE sessions SET revoked_at = now(), revoked_reason = $2 WHERE id = $1 AND revoked_at IS NULL', [
    sessionId,
    reason,
  ]);
}

export async function revokeUserSessions(db: Queryable, userId: string, reason: RevokeReason): Promise<number> {
  const { rowCount } = await db.query(
    'UPDATE sessions SET revoked_at = now(), revoked_reason = $2 WHERE user_id = $1 AND revoked_at IS NULL',
    [userId, reason],
  );
  return rowCount ?? 0;
}

/** Ends every live session of the user but `keepId` (a password change keeps the session that made it); returns their ids. */
export async function revokeOtherSessions(db: Queryable, userId: string, keepId: string, reason: RevokeReason): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE sessions SET revoked_at = now(), revoked_reason = $3 WHERE user_id = $1 AND id <> $2 AND revoked_at IS NULL RETURNING id`,
    [userId, keepId, reason],
  );
  return rows.map((r) => r.id);
}

export async function insertRefreshToken(db: Queryable, o: { tokenHash: string; sessionId: string; ttlSeconds: number }): Promise<void> {
  await db.query(
    `INSERT INTO refresh_tokens (token_hash, session_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))`,
    [o.tokenHash, o.sessionId, o.ttlSeconds],
  );
}

/**
 * Marks a refresh token used, in one statement: of two concurrent refreshes with the same token
 * only one can match `used_at IS NULL` (the other waits on the row lock, then matches nothing).
 * Returns its session and user when the token was unused, unexpired and its session live (not
 * revoked, within its absolute lifetime).
 */
export async function consumeRefreshToken(db: Queryable, tokenHash: string, maxAgeSeconds: number): Promise<LiveSession | undefined> {
  const { rows } = await db.query<{ session_id: string; user_id: string; email: string }>(
    `UPDATE refresh_tokens rt SET used_at = now()
     FROM sessions s, users u
     WHERE rt.token_hash = $1 AND rt.used_at IS NULL AND rt.expires_at > now()
       AND s.id = rt.session_id AND s.revoked_at IS NULL AND s.created_at > now() - make_interval(secs => $2)
       AND u.id = s.user_id
     RETURNING rt.session_id, s.user_id, u.email`,
    [tokenHash, maxAgeSeconds],
  );
  return rows[0] && { sessionId: rows[0].session_id, userId: rows[0].user_id, email: rows[0].email };
}

/** Whether a token that could not be consumed had been used before (a replay), and by which session. */
export async function findUsedRefreshToken(db: Queryable, tokenHash: string): Promise<{ sessionId: string; userId: string } | undefined> {
  const { rows } = await db.query<{ session_id: string; user_id: string }>(
    `SELECT rt.session_id, s.user_id FROM refresh_tokens rt JOIN sessions s ON s.id = rt.session_id
     WHERE rt.token_hash = $1 AND rt.used_at IS NOT NULL`,
    [tokenHash],
  );
  return rows[0] && { sessionId: rows[0].session_id, userId: rows[0].user_id };
}
