import type { FriendStatus } from '../domain/statuses.ts';
import type { Queryable } from './pool.ts';

// Friendships (migration 010): one row per pair, `user_low < user_high`.

export type FriendshipRecord = { status: 'pending' | 'friends'; requestedBy: string; since: Date };


export type FriendRow = {
  id: string;
  username: string;
  avatarUrl: string | null;
  /** The headline (blitz) rating when one is stored. */
  rating: number | null;
  status: FriendStatus;
  since: Date;
  lastSeenAt: Date | null;
};

const pair = (a: string, b: string) => (a < b ? [a, b] : [b, a]);

/**
 * Serialises every friend change that involves either user, for the rest of the transaction:
 * a request each way at once becomes one acceptance, and the limits are counted with nothing
 * changing underneath. Advisory locks, in a fixed order so two transactions cannot deadlock.
 */
export async function lockFriendsOf(tx: Queryable, a: string, b: string): Promise<void> {
  for (const id of pair(a, b)) await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('friends:' || $1, 0))`, [id]);
}

export async function findFriendship(db: Queryable, a: string, b: string): Promise<FriendshipRecord | undefined> {
  const { rows } = await db.query('SELECT status, requested_by, since FROM friendships WHERE user_low = $1 AND user_high = $2', pair(a, b));
  return rows[0] && { status: rows[0].status, requestedBy: rows[0].requested_by, since: rows[0].since };
}

export async function insertRequest(db: Queryable, from: string, to: string, since: Date): Promise<void> {
  await db.query(`INSERT INTO friendships (user_low, user_high, status, requested_by, since) VALUES ($1, $2, 'pending', $3, $4)`, [
    ...pair(from, to),
    from,
    since,
  ]);
}

export async function acceptRequest(db: Queryable, a: string, b: string, since: Date): Promise<void> {
  await db.query(`UPDATE friendships SET status = 'friends', since = $3 WHERE user_low = $1 AND user_high = $2`, [...pair(a, b), since]);
}

/**
 * Records that `to` is told of `from`'s request at `at`, unless they were told after `quietSince`:
 * true when they are to be told now. One statement, so two requests at once cannot both tell.
 */
export async function claimRequestNotice(db: Queryable, from: string, to: string, at: Date, quietSince: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO friend_request_notices (from_id, to_id, notified_at) VALUES ($1, $2, $3)
     ON CONFLICT (from_id, to_id) DO UPDATE SET notified_at = EXCLUDED.notified_at
       WHERE friend_request_notices.notified_at <= $4`,
    [from, to, at, quietSince],
  );
  return rowCount === 1;
}

/** Ends whatever relation the two have. False when there was none. */
export async function deleteFriendship(db: Queryable, a: string, b: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM friendships WHERE user_low = $1 AND user_high = $2', pair(a, b));
  return rowCount === 1;
}

/** Requests `userId` has sent that are still pending. */
export async function countOutgoing(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM friendships WHERE requested_by = $1 AND status = 'pending'`, [userId]);
  return rows[0].n;
}

export async function countFriends(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query(
    `SELECT count(*)::int AS n FROM friendships WHERE (user_low = $1 OR user_high = $1) AND status = 'friends'`,
    [userId],
  );
  return rows[0].n;
}

/** The other side of `userId`'s relations with `status`, newest `since` first. */
export async function listFriends(
  db: Queryable,
  o: { userId: string; status: FriendStatus; limit: number; offset: number; ascending: boolean },
): Promise<{ rows: FriendRow[]; total: number }> {
  const where = {
    friends: `f.status = 'friends'`,
    incoming: `f.status = 'pending' AND f.requested_by <> $1`,
    outgoing: `f.status = 'pending' AND f.requested_by = $1`,
  }[o.status];
  const mine = `(f.user_low = $1 OR f.user_high = $1) AND ${where}`;
  const [page, count] = await Promise.all([
    db.query(
      `SELECT u.id, u.username, u.avatar_url, u.last_seen_at, f.since,
              (SELECT r.rating FROM user_ratings r WHERE r.user_id = u.id AND r.category = 'blitz') AS rating
         FROM friendships f JOIN users u ON u.id = CASE WHEN f.user_low = $1 THEN f.user_high ELSE f.user_low END
        WHERE ${mine}
        ORDER BY f.since ${o.ascending ? 'ASC' : 'DESC'}, u.id LIMIT $2 OFFSET $3`,
      [o.userId, o.limit, o.offset],
    ),
    db.query(`SELECT count(*)::int AS n FROM friendships f WHERE ${mine}`, [o.userId]),
  ]);
  return {
    rows: page.rows.map((r) => ({
      id: r.id,
      username: r.username,
      avatarUrl: r.avatar_url,
      rating: r.rating === null ? null : Math.round(r.rating),
      status: o.status,
      since: r.since,
      lastSeenAt: r.last_seen_at,
    })),
    total: count.rows[0].n,
  };
}

/**
 * Marks users as seen now (presence: an authenticated request or a live socket). A user whose row
 * another transaction holds (a game finishing, which updates both players' rows) is skipped, not
 * waited for: the next minute's write marks them. Waiting, a write of many users deadlocked with
 * such a transaction (each held a row the other wanted).
 */
/**
 * The user left at `leftAt` (their last socket closed): last seen at `gone`, a time already
 * offline, unless a sign of life written since (at `leftAt` or later) says otherwise.
 */
export async function markGone(db: Queryable, userId: string, gone: Date, leftAt: Date): Promise<void> {
  // SKIP LOCKED as in markSeen: a row a game's finish holds stays as it is (online a while longer).
  await db.query(
    `UPDATE users u SET last_seen_at = $2
       FROM (SELECT id FROM users WHERE id = $1 AND last_seen_at > $2 AND last_seen_at < $3 FOR UPDATE SKIP LOCKED) free
      WHERE u.id = free.id`,
    [userId, gone, leftAt],
  );
}

export async function markSeen(db: Queryable, userIds: string[], at: Date): Promise<void> {
  if (userIds.length === 0) return;
  await db.query(
    `UPDATE users u SET last_seen_at = $2
       FROM (SELECT id FROM users WHERE id = ANY($1::uuid[]) AND (last_seen_at IS NULL OR last_seen_at < $2)
               FOR UPDATE SKIP LOCKED) free
      WHERE u.id = free.id`,
    [userIds, at],
  );
}
