import type { Queryable } from './pool.ts';

/** A personal access token as stored: never the token itself, only its hash (DESIGN 2.12). */
export type PersonalTokenRecord = {
  id: string;
  userId: string;
  description: string;
  scopes: string[];
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
};

/** The token's record with its user's current email: what authenticating a token needs. */
export type LivePersonalToken = PersonalTokenRecord & { email: string };

const COLUMNS = 't.id, t.user_id, t.description, t.scopes, t.created_at, t.expires_at, t.last_used_at';

type Row = {
  id: string;
  user_id: string;
  description: string;
  scopes: string[];
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
};

const toRecord = (r: Row): PersonalTokenRecord => ({
  id: r.id,
  userId: r.user_id,
  description: r.description,
  scopes: r.scopes,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
});

/** Stores a token unless the user already has `max`; undefined then. Run it in a transaction. */
export async function insertPersonalToken(
  db: Queryable,
  t: { userId: string; tokenHash: string; description: string; scopes: string[]; createdAt: Date; expiresAt: Date | null; max: number },
): Promise<PersonalTokenRecord | undefined> {
  // The user's row is locked, so two requests at once cannot both take the last place.
  await db.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [t.userId]);
  const { rows } = await db.query<Row>(
    `INSERT INTO personal_tokens AS t (user_id, token_hash, description, scopes, created_at, expires_at)
     SELECT $1, $2, $3, $4, $5, $6 WHERE (SELECT count(*) FROM personal_tokens WHERE user_id = $1) < $7
     RETURNING ${COLUMNS}`,
    [t.userId, t.tokenHash, t.description, t.scopes, t.createdAt, t.expiresAt, t.max],
  );
  return rows[0] && toRecord(rows[0]);
}

/** The user's tokens, newest first. */
export async function listPersonalTokens(db: Queryable, userId: string, limit: number, offset: number): Promise<{ rows: PersonalTokenRecord[]; total: number }> {
  const [page, count] = await Promise.all([
    db.query<Row>(`SELECT ${COLUMNS} FROM personal_tokens t WHERE t.user_id = $1 ORDER BY t.created_at DESC, t.id LIMIT $2 OFFSET $3`, [userId, limit, offset]),
    db.query<{ total: number }>('SELECT count(*)::int AS total FROM personal_tokens WHERE user_id = $1', [userId]),
  ]);
  return { rows: page.rows.map(toRecord), total: count.rows[0].total };
}

/**
 * The token of this hash with its user's email, expired or not (the caller compares with its
 * clock). A named statement: it runs for every request with a token the cache cannot answer.
 */
export async function findPersonalTokenByHash(db: Queryable, tokenHash: string): Promise<LivePersonalToken | undefined> {
  const { rows } = await db.query<Row & { email: string }>({
    name: 'find-personal-token',
    text: `SELECT ${COLUMNS}, u.email FROM personal_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1`,
    values: [tokenHash],
  });
  return rows[0] && { ...toRecord(rows[0]), email: rows[0].email };
}

/** The tokens of these hashes, by hash, with their users' usernames, expired or not (a token test, DESIGN 2.13). */
export async function findPersonalTokensByHashes(db: Queryable, tokenHashes: string[]): Promise<Map<string, PersonalTokenRecord & { username: string }>> {
  const { rows } = await db.query<Row & { token_hash: string; username: string }>(
    `SELECT ${COLUMNS}, t.token_hash, u.username FROM personal_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ANY($1::text[])`,
    [tokenHashes],
  );
  return new Map(rows.map((r) => [r.token_hash, { ...toRecord(r), username: r.username }]));
}

/** Whether the token still exists and has not expired at `now`. */
export async function isPersonalTokenLive(db: Queryable, id: string, now: Date): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM personal_tokens WHERE id = $1 AND (expires_at IS NULL OR expires_at > $2)', [id, now]);
  return (rowCount ?? 0) > 0;
}

/** Deletes one of the user's tokens; false when the user has no token of this id. */
export async function deletePersonalToken(db: Queryable, userId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM personal_tokens WHERE id = $1 AND user_id = $2', [id, userId]);
  return (rowCount ?? 0) > 0;
}

/** Deletes every token of the user; returns their ids. */
export async function deleteUserPersonalTokens(db: Queryable, userId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>('DELETE FROM personal_tokens WHERE user_id = $1 RETURNING id', [userId]);
  return rows.map((r) => r.id);
}

/** Records a use at `minute` (a whole minute); a later minute already stored stays. */
export async function touchPersonalToken(db: Queryable, id: string, minute: Date): Promise<void> {
  await db.query('UPDATE personal_tokens SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)', [id, minute]);
}
