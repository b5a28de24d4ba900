import type { Queryable } from './pool.ts';
import { err, ok, type Result } from '../result.ts';
import type { PlayerRecord } from './games.ts';

/** Rating categories of `user_ratings` (the game time controls). */
export const RATING_CATEGORIES = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence'] as const;
export type RatingCategory = (typeof RATING_CATEGORIES)[number];

export type UserRecord = {
  id: string;
  email: string;
  username: string;
  passwordHash: string;
  fullName: string | null;
  avatarUrl: string | null;
  country: string | null;
  emailVerified: boolean;
  gamesPlayed: number;
  wins: number;
  losses: number;
  draws: number;
  /** A bot account (DESIGN 2.13: Lichess's title BOT): plays through challenges only. */
  bot: boolean;
  createdAt: Date;
  updatedAt: Date;
};

/**
 * A user with the ratings it has rows for, the puzzle rating included (a missing one means the
 * defaults), and their Glicko-2 deviations.
 */
export type ProfileRecord = Omit<UserRecord, 'passwordHash'> & {
  ratings: Partial<Record<RatingCategory | 'puzzle', number>>;
  deviations: Partial<Record<RatingCategory | 'puzzle', number>>;
};

/** Which unique field a write collided with (both are unique case-insensitively). */
export type TakenField = 'email' | 'username';

const USER_COLUMNS = `u.id, u.email, u.username, u.password_hash, u.full_name, u.avatar_url, u.country,
  u.email_verified, u.games_played, u.wins, u.losses, u.draws, u.bot, u.created_at, u.updated_at`;
const PROFILE_COLUMNS = `${USER_COLUMNS},
  COALESCE((SELECT jsonb_object_agg(r.category, r.rating) FROM user_ratings r WHERE r.user_id = u.id), '{}'::jsonb) AS ratings,
  COALESCE((SELECT jsonb_object_agg(r.category, r.rd) FROM user_ratings r WHERE r.user_id = u.id), '{}'::jsonb) AS deviations`;

type UserRow = {
  id: string;
  email: string;
  username: string;
  password_hash: string;
  full_name: string | null;
  avatar_url: string | null;
  country: string | null;
  email_verified: boolean;
  games_played: number;
  wins: number;
  losses: number;
  draws: number;
  bot: boolean;
  created_at: Date;
  updated_at: Date;
};

const toUser = (r: UserRow): UserRecord => ({
  id: r.id,
  email: r.email,
  username: r.username,
  passwordHash: r.password_hash,
  fullName: r.full_name,
  avatarUrl: r.avatar_url,
  country: r.country,
  emailVerified: r.email_verified,
  gamesPlayed: r.games_played,
  wins: r.wins,
  losses: r.losses,
  draws: r.draws,
  bot: r.bot,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toProfile = (r: UserRow & { ratings: Record<string, number>; deviations: Record<string, number> }): ProfileRecord => {
  const { passwordHash: _, ...user } = toUser(r);
  return { ...user, ratings: r.ratings, deviations: r.deviations };
};

/** A unique-index violation names the index; that tells which field is taken. */
function takenFieldOf(error: unknown): TakenField | undefined {
  const e = error as { code?: string; constraint?: string };
  if (e?.code !== '23505') return undefined;
  if (e.constraint === 'users_email_key') return 'email';
  if (e.constraint === 'users_username_key') return 'username';
  return undefined;
}

async function catchTaken<T>(write: () => Promise<T>): Promise<Result<T, TakenField>> {
  try {
    return ok(await write());
  } catch (error) {
    const taken = takenFieldOf(error);
    if (taken) return err(taken);
    throw error;
  }
}

export type NewUser = { email: string; username: string; passwordHash: string; fullName: string | null };

export function insertUser(db: Queryable, u: NewUser): Promise<Result<UserRecord, TakenField>> {
  return catchTaken(async () => {
    const { rows } = await db.query<UserRow>(
      `INSERT INTO users AS u (email, username, password_hash, full_name) VALUES ($1, $2, $3, $4) RETURNING ${USER_COLUMNS}`,
      [u.email, u.username, u.passwordHash, u.fullName],
    );
    return toUser(rows[0]);
  });
}

/** The first of `email`, `username` that another user (not `exceptId`) already has. */
export async function findTakenField(
  db: Queryable,
  o: { email?: string; username?: string; exceptId?: string },
): Promise<TakenField | undefined> {
  const { rows } = await db.query<{ email_taken: boolean; username_taken: boolean }>(
    `SELECT
       EXISTS (SELECT 1 FROM users WHERE email = $1 AND id IS DISTINCT FROM $3::uuid) AS email_taken,
       EXISTS (SELECT 1 FROM users WHERE lower(username) = lower($2) AND id IS DISTINCT FROM $3::uuid) AS username_taken`,
    [o.email ?? null, o.username ?? null, o.exceptId ?? null],
  );
  if (rows[0].email_taken) return 'email';
  if (rows[0].username_taken) return 'username';
  return undefined;
}

/** `email` in its normalised form (auth/rules.ts `normalizeEmail`), the form it is stored in. */
export async function findUserByEmail(db: Queryable, email: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.email = $1`, [email]);
  return rows[0] && toUser(rows[0]);
}

/**
 * The user with this username, given in its lookup form (auth/rules.ts `normalizeUsername`, which
 * lower-cases in code): only the stored side goes through `lower()`, and stored usernames are
 * ASCII, so the two agree; `lower($1)` would also fold `İ` to `i`, which the login throttle does
 * not (docs/decisions.md).
 */
export async function findUserByUsername(db: Queryable, usernameKey: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE lower(u.username) = $1`, [usernameKey]);
  return rows[0] && toUser(rows[0]);
}

export async function findUserById(db: Queryable, id: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1`, [id]);
  return rows[0] && toUser(rows[0]);
}

export async function findProfile(db: Queryable, id: string): Promise<ProfileRecord | undefined> {
  const { rows } = await db.query(`SELECT ${PROFILE_COLUMNS} FROM users u WHERE u.id = $1`, [id]);
  return rows[0] && toProfile(rows[0]);
}

/** Like `findUserByUsername`, the username in its lookup form. */
export async function findProfileByUsername(db: Queryable, usernameKey: string): Promise<ProfileRecord | undefined> {
  const { rows } = await db.query(`SELECT ${PROFILE_COLUMNS} FROM users u WHERE lower(u.username) = $1`, [usernameKey]);
  return rows[0] && toProfile(rows[0]);
}

/** A new address, confirmed (its link was opened: issue 37); err when another user has it. */
export function setConfirmedEmail(db: Queryable, id: string, email: string): Promise<Result<UserRecord | undefined, TakenField>> {
  return catchTaken(async () => {
    const { rows } = await db.query<UserRow>(
      `UPDATE users AS u SET email = $2, email_verified = true, updated_at = now() WHERE u.id = $1 RETURNING ${USER_COLUMNS}`,
      [id, email],
    );
    return rows[0] && toUser(rows[0]);
  });
}

/** `pattern` is a LIKE pattern on the lower-cased username, wildcards in user input already escaped. */
export async function searchProfiles(
  db: Queryable,
  o: { pattern: string; limit: number; offset: number },
): Promise<{ rows: ProfileRecord[]; total: number }> {
  const where = `lower(u.username) LIKE $1 ESCAPE '\\'`;
  const [page, count] = await Promise.all([
    db.query(
      // COLLATE "C": the same order on every server, whatever its locale.
      `SELECT ${PROFILE_COLUMNS} FROM users u WHERE ${where} ORDER BY lower(u.username) COLLATE "C", u.id LIMIT $2 OFFSET $3`,
      [o.pattern, o.limit, o.offset],
    ),
    db.query<{ total: number }>(`SELECT count(*)::int AS total FROM users u WHERE ${where}`, [o.pattern]),
  ]);
  return { rows: page.rows.map(toProfile), total: count.rows[0].total };
}

export type ProfilePatch = { username?: string; fullName?: string | null; avatarUrl?: string | null; country?: string | null };
const PATCH_COLUMNS = { username: 'username', fullName: 'full_name', avatarUrl: 'avatar_url', country: 'country' } as const;

/** Applies the fields present in `patch`; false when the user does not exist. */
export function updateProfile(db: Queryable, id: string, patch: ProfilePatch): Promise<Result<boolean, TakenField>> {
  const keys = (Object.keys(PATCH_COLUMNS) as Array<keyof ProfilePatch>).filter((k) => patch[k] !== undefined);
  if (keys.length === 0) return Promise.resolve(ok(true));
  const sets = keys.map((k, i) => `${PATCH_COLUMNS[k]} = $${i + 2}`);
  return catchTaken(async () => {
    const { rowCount } = await db.query(`UPDATE users SET ${sets.join(', ')}, updated_at = now() WHERE id = $1`, [
      id,
      ...keys.map((k) => patch[k]),
    ]);
    return rowCount === 1;
  });
}

export async function setPasswordHash(db: Queryable, id: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [id, passwordHash]);
}

/** Returns the user, now verified. */
export async function markEmailVerified(db: Queryable, id: string): Promise<UserRecord | undefined> {
  const { rows } = await db.query<UserRow>(
    `UPDATE users AS u SET email_verified = true,
       updated_at = CASE WHEN u.email_verified THEN u.updated_at ELSE now() END
     WHERE u.id = $1 RETURNING ${USER_COLUMNS}`,
    [id],
  );
  return rows[0] && toUser(rows[0]);
}

/** The players of a game as its views show them, by id (a live game keeps them while it runs). */
export async function findPlayers(db: Queryable, ids: string[]): Promise<Map<string, PlayerRecord>> {
  const { rows } = await db.query('SELECT id, username, avatar_url, country, bot FROM users WHERE id = ANY($1::uuid[])', [ids]);
  return new Map(rows.map((r) => [r.id as string, { id: r.id, username: r.username, avatarUrl: r.avatar_url, country: r.country, bot: r.bot === true }]));
}
