import type { Queryable } from './pool.ts';

/**
 * One-time tokens mailed to a user, stored hashed: password reset, email verification, and a
 * change of email waiting for its new address (`email`) to be confirmed (migration 030).
 */
export type UserTokenPurpose = 'reset' | 'verify' | 'email_change';

/** `email`: the new address of an `email_change` token, and only of one. */
export async function insertUserToken(
  db: Queryable,
  o: { tokenHash: string; userId: string; purpose: UserTokenPurpose; ttlSeconds: number; email?: string },
): Promise<void> {
  await db.query(
    `INSERT INTO user_tokens (token_hash, user_id, purpose, expires_at, email)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4), $5)`,
    [o.tokenHash, o.userId, o.purpose, o.ttlSeconds, o.email ?? null],
  );
}

/**
 * Uses a token up in one statement (so it works once, even when two requests race) and returns
 * its user; undefined when the token is unknown, of another purpose, used or expired.
 */
export async function consumeUserToken(db: Queryable, tokenHash: string, purpose: UserTokenPurpose): Promise<string | undefined> {
  const { rows } = await db.query<{ user_id: string }>(
    `UPDATE user_tokens SET used_at = now()
     WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
     RETURNING user_id`,
    [tokenHash, purpose],
  );
  return rows[0]?.user_id;
}

/** Uses up an email change's token, like `consumeUserToken`; its user and the address it confirms. */
export async function consumeEmailChangeToken(db: Queryable, tokenHash: string): Promise<{ userId: string; email: string } | undefined> {
  const { rows } = await db.query<{ user_id: string; email: string }>(
    `UPDATE user_tokens SET used_at = now()
     WHERE token_hash = $1 AND purpose = 'email_change' AND used_at IS NULL AND expires_at > now()
     RETURNING user_id, email`,
    [tokenHash],
  );
  return rows[0] && { userId: rows[0].user_id, email: rows[0].email };
}

/** The new address of the user's email change still waiting for confirmation, if any (one is live at most). */
export async function findPendingEmail(db: Queryable, userId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ email: string }>(
    `SELECT email FROM user_tokens
     WHERE user_id = $1 AND purpose = 'email_change' AND used_at IS NULL AND expires_at > now()
     ORDER BY created_at DESC LIMIT 1`,
    [userId],
  );
  return rows[0]?.email;
}

/** The user a live token (unused, unexpired) of `purpose` belongs to, without using it up. */
export async function findLiveUserToken(db: Queryable, tokenHash: string, purpose: UserTokenPurpose): Promise<string | undefined> {
  const { rows } = await db.query<{ user_id: string }>(
    'SELECT user_id FROM user_tokens WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()',
    [tokenHash, purpose],
  );
  return rows[0]?.user_id;
}

/** Uses up every live token of `purpose` the user holds (a newer one replaces them). */
export async function revokeUserTokens(db: Queryable, userId: string, purpose: UserTokenPurpose): Promise<void> {
  await db.query('UPDATE user_tokens SET used_at = now() WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL', [userId, purpose]);
}
