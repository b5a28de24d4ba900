import type { PoolKey } from '../domain/pairing.ts';
import { DEFAULT_GLICKO } from '../domain/glicko2.ts';
import type { SeekColor } from '../domain/pairing.ts';
import type { TimeControl } from '../domain/timeControl.ts';
import type { Queryable } from './pool.ts';

/** The pool a seek belongs to: only seeks with the same four values can meet. */

export type OpenSeek = {
  id: string;
  userId: string;
  username: string;
  rating: number;
  color: SeekColor;
  createdAt: Date;
  expiresAt: Date;
  pool: PoolKey;
};

const OPEN_SEEKS = `
  SELECT g.id, g.created_by, u.username, g.color_preference, g.created_at, g.expires_at,
         g.time_control, g.initial_time, g.increment, g.rated, coalesce(r.rating, $1) AS rating
    FROM games g
    JOIN users u ON u.id = g.created_by
    LEFT JOIN user_ratings r ON r.user_id = g.created_by AND r.category = g.time_control
   WHERE g.status = 'pending' AND g.kind = 'matchmaking' AND g.expires_at > now()`;

function toSeek(r: Record<string, any>): OpenSeek {
  return {
    id: r.id,
    userId: r.created_by,
    username: r.username,
    rating: Math.round(r.rating),
    color: r.color_preference,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    pool: { timeControl: r.time_control, initialTime: r.initial_time, increment: r.increment, rated: r.rated },
  };
}

/** Open seeks, oldest first: of one pool, or of every pool (the lobby). */
export async function listOpenSeeks(db: Queryable, pool?: PoolKey): Promise<OpenSeek[]> {
  const { rows } = pool
    ? await db.query(
        `${OPEN_SEEKS} AND g.time_control = $2 AND g.initial_time = $3 AND g.increment = $4 AND g.rated = $5 ORDER BY g.created_at`,
        [DEFAULT_GLICKO.rating, pool.timeControl, pool.initialTime, pool.increment, pool.rated],
      )
    : await db.query(`${OPEN_SEEKS} ORDER BY g.created_at LIMIT 500`, [DEFAULT_GLICKO.rating]);
  return rows.map(toSeek);
}

export async function findOpenSeek(db: Queryable, id: string): Promise<OpenSeek | undefined> {
  const { rows } = await db.query(`${OPEN_SEEKS} AND g.id = $2`, [DEFAULT_GLICKO.rating, id]);
  return rows[0] ? toSeek(rows[0]) : undefined;
}

export async function findOpenSeekOf(db: Queryable, userId: string): Promise<OpenSeek | undefined> {
  const { rows } = await db.query(`${OPEN_SEEKS} AND g.created_by = $2`, [DEFAULT_GLICKO.rating, userId]);
  return rows[0] ? toSeek(rows[0]) : undefined;
}

/** What the pool needs to know of a newcomer, in one round trip. */
export async function seekerState(
  db: Queryable,
  userId: string,
  category: TimeControl,
): Promise<{ rating: number; seeking: boolean; playing: boolean; bot: boolean }> {
  const { rows } = await db.query(
    `SELECT coalesce((SELECT rating FROM user_ratings WHERE user_id = $1 AND category = $2), $3) AS rating,
            coalesce((SELECT bot FROM users WHERE id = $1), false) AS bot,
            EXISTS (SELECT 1 FROM games WHERE created_by = $1 AND kind = 'matchmaking' AND status = 'pending'
                      AND expires_at > now()) AS seeking,
            EXISTS (SELECT 1 FROM games WHERE (white_id = $1 OR black_id = $1) AND status = 'active'
                    AND days_per_move IS NULL) AS playing`,
    [userId, category, DEFAULT_GLICKO.rating],
  );
  return { rating: Math.round(rows[0].rating), seeking: rows[0].seeking, playing: rows[0].playing, bot: rows[0].bot };
}

/** A player who starts a game stops seeking: their open seeks are cancelled (ids returned). */
export async function cancelOpenSeeksOf(db: Queryable, userIds: string[]): Promise<string[]> {
  const { rows } = await db.query(
    `UPDATE games SET status = 'abandoned', abort_reason = 'cancelled', updated_at = now(), finished_at = now()
      WHERE kind = 'matchmaking' AND status = 'pending' AND created_by = ANY($1::uuid[])
      RETURNING id`,
    [userIds],
  );
  return rows.map((r) => r.id as string);
}

/** The younger seek of a pair becomes part of the older one's game. */
export async function mergeSeekInto(db: Queryable, seekId: string, gameId: string, userId: string): Promise<void> {
  await db.query(`DELETE FROM games WHERE id = $1 AND status = 'pending' AND kind = 'matchmaking'`, [seekId]);
  await db.query('INSERT INTO seek_redirects (seek_id, game_id, user_id) VALUES ($1, $2, $3)', [seekId, gameId, userId]);
}

export async function findSeekRedirect(db: Queryable, seekId: string): Promise<{ gameId: string; userId: string } | undefined> {
  const { rows } = await db.query('SELECT game_id, user_id FROM seek_redirects WHERE seek_id = $1', [seekId]);
  return rows[0] ? { gameId: rows[0].game_id, userId: rows[0].user_id } : undefined;
}

export async function acquirePoolLease(db: Queryable, pool: string, host: string, leaseMs: number): Promise<number | undefined> {
  const { rows } = await db.query(
    `INSERT INTO seek_pools (pool, host, host_epoch, lease_expires_at)
     VALUES ($1, $2, 1, now() + make_interval(secs => $3::double precision / 1000))
     ON CONFLICT (pool) DO UPDATE SET host = EXCLUDED.host, host_epoch = seek_pools.host_epoch + 1,
       lease_expires_at = EXCLUDED.lease_expires_at
       WHERE seek_pools.lease_expires_at IS NULL OR seek_pools.lease_expires_at < now()
     RETURNING host_epoch`,
    [pool, host, leaseMs],
  );
  return rows[0]?.host_epoch;
}

export async function renewPoolLease(db: Queryable, pool: string, epoch: number, leaseMs: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE seek_pools SET lease_expires_at = now() + make_interval(secs => $3::double precision / 1000)
      WHERE pool = $1 AND host_epoch = $2`,
    [pool, epoch, leaseMs],
  );
  return rowCount === 1;
}

export async function releasePoolLease(db: Queryable, pool: string, epoch: number): Promise<void> {
  await db.query('UPDATE seek_pools SET lease_expires_at = NULL, host = NULL WHERE pool = $1 AND host_epoch = $2', [pool, epoch]);
}
