import type { Queryable } from './pool.ts';

/** One-time tokens mailed to a user: password reset and email verification, stored hashed. */
export type UserTokenPurpose = 'reset' | 'verify';

export async function insertUserToken(
  db: Queryable,
  o: { tokenHash: string; userId: string; purpose: UserTokenPurpose; ttlSeconds: number },
): Promise<void> {
  await db.query(
    `INSERT INTO user_tokens (token_hash, user_id, purpose, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))`,
    [o.tokenHash, o.userId, o.purpose, o.ttlSeconds],
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
