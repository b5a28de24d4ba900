import type { Queryable } from './pool.ts';
import { err, ok, type Result } from '../result.ts';

export type ClubRole = 'owner' | 'member' | 'invited';
export type MemberRole = Exclude<ClubRole, 'invited'>;

/** The club row, as locked by the writes that judge it. */
export type ClubRow = { id: string; name: string; open: boolean; ownerId: string };

/** A club as one viewer sees it: `role` is theirs (null for anyone else and for no viewer). */
export type ClubRecord = ClubRow & {
  description: string | null;
  ownerUsername: string;
  memberCount: number;
  createdAt: Date;
  role: ClubRole | null;
};

export type MemberRecord = { userId: string; username: string; role: MemberRole; joinedAt: Date };
export type InvitationRecord = { clubId: string; userId: string; username: string; invitedAt: Date };

/**
 * Who is looking, and from when an invitation still counts (older ones have lapsed): the role of
 * a club read depends on both.
 */
export type Viewer = { userId: string | null; invitedSince: Date };

export type ClubSortField = 'members' | 'created_at' | 'name';
export type ClubOrder = { field: ClubSortField; direction: 'asc' | 'desc' };
export type ClubFilter = { q?: string; memberId?: string };

const toClubRow = (r: any): ClubRow => ({ id: r.id, name: r.name, open: r.open, ownerId: r.owner_id });
const toClub = (r: any): ClubRecord => ({
  ...toClubRow(r),
  description: r.description,
  ownerUsername: r.owner_username,
  memberCount: r.member_count,
  createdAt: r.created_at,
  role: r.role,
});

/** The view of clubs `c` for the viewer in $1 (uuid or null), invitations after $2. */
const CLUB_VIEW = `
  SELECT c.id, c.name, c.description, c.open, c.owner_id, o.username AS owner_username, c.member_count, c.created_at,
         coalesce(m.role, CASE WHEN i.user_id IS NOT NULL THEN 'invited' END) AS role
    FROM clubs c
    JOIN users o ON o.id = c.owner_id
    LEFT JOIN club_members m ON m.club_id = c.id AND m.user_id = $1::uuid
    LEFT JOIN club_invitations i ON i.club_id = c.id AND i.user_id = $1::uuid AND i.invited_at > $2`;

/** `%`, `_` and the escape character itself match literally. */
const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

export type NewClub = { name: string; description: string | null; open: boolean; ownerId: string; now: Date; maxOwned: number };

/** Creates a club with its owner as first member; `limit` when the owner has `maxOwned`, `taken` when the name is. */
export async function insertClub(tx: Queryable, c: NewClub): Promise<Result<string, 'limit' | 'taken'>> {
  // The owner's row is locked first, so two creates at once cannot both take the last place.
  // NO KEY UPDATE leaves foreign-key checks against the row (their games, their joins) alone.
  await tx.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [c.ownerId]);
  const { rows: counted } = await tx.query('SELECT count(*)::int AS owned FROM clubs WHERE owner_id = $1', [c.ownerId]);
  if (counted[0].owned >= c.maxOwned) return err('limit');
  // A create racing for the same name waits here for the other's outcome, then does nothing.
  const { rows } = await tx.query(
    `INSERT INTO clubs (name, description, open, owner_id, created_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT ((lower(name))) DO NOTHING RETURNING id`,
    [c.name, c.description, c.open, c.ownerId, c.now],
  );
  if (!rows[0]) return err('taken');
  await tx.query(`INSERT INTO club_members (club_id, user_id, role, joined_at) VALUES ($1, $2, 'owner', $3)`, [rows[0].id, c.ownerId, c.now]);
  return ok(rows[0].id);
}

/** Locks the club for a change of its members, invitations or existence; every such write takes this lock first. */
export async function lockClub(tx: Queryable, id: string): Promise<ClubRow | undefined> {
  const { rows } = await tx.query('SELECT id, name, open, owner_id FROM clubs WHERE id = $1 FOR UPDATE', [id]);
  return rows[0] && toClubRow(rows[0]);
}

export async function findClub(db: Queryable, id: string, viewer: Viewer): Promise<ClubRecord | undefined> {
  const { rows } = await db.query(`${CLUB_VIEW} WHERE c.id = $3`, [viewer.userId, viewer.invitedSince, id]);
  return rows[0] && toClub(rows[0]);
}

/** The filter as SQL, its parameters numbered after the first `offset` ones. */
function clubWhere(f: ClubFilter, offset: number): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown) => `$${offset + params.push(value)}`;
  const where: string[] = ['true'];
  if (f.q) where.push(`c.name ILIKE ${p(likeContains(f.q))}`);
  if (f.memberId) where.push(`EXISTS (SELECT 1 FROM club_members x WHERE x.club_id = c.id AND x.user_id = ${p(f.memberId)})`);
  return { sql: where.join(' AND '), params };
}

export async function listClubs(
  db: Queryable,
  viewer: Viewer,
  filter: ClubFilter,
  order: ClubOrder,
  page: { limit: number; offset: number },
): Promise<{ clubs: ClubRecord[]; total: number }> {
  const dir = order.direction === 'asc' ? 'ASC' : 'DESC';
  // Names are unique ignoring case: they settle ties of the count; creation ties fall to the id.
  const orderBy = {
    members: `c.member_count ${dir}, lower(c.name) ASC`,
    created_at: `c.created_at ${dir}, c.id ${dir}`,
    name: `lower(c.name) ${dir}`,
  }[order.field];
  const viewed = clubWhere(filter, 2);
  const n = 2 + viewed.params.length;
  const counted = clubWhere(filter, 0);
  const [found, total] = await Promise.all([
    db.query(`${CLUB_VIEW} WHERE ${viewed.sql} ORDER BY ${orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`, [
      viewer.userId,
      viewer.invitedSince,
      ...viewed.params,
      page.limit,
      page.offset,
    ]),
    db.query(`SELECT count(*)::int AS total FROM clubs c WHERE ${counted.sql}`, counted.params),
  ]);
  return { clubs: found.rows.map(toClub), total: total.rows[0].total };
}

export async function findMemberRole(db: Queryable, clubId: string, userId: string): Promise<MemberRole | undefined> {
  const { rows } = await db.query('SELECT role FROM club_members WHERE club_id = $1 AND user_id = $2', [clubId, userId]);
  return rows[0]?.role;
}

/** Owner first, then by joining time. */
export async function listMembers(db: Queryable, clubId: string, page: { limit: number; offset: number }): Promise<{ members: MemberRecord[]; total: number }> {
  const [found, counted] = await Promise.all([
    db.query(
      `SELECT m.user_id, u.username, m.role, m.joined_at FROM club_members m JOIN users u ON u.id = m.user_id
        WHERE m.club_id = $1 ORDER BY m.role = 'owner' DESC, m.joined_at, m.user_id LIMIT $2 OFFSET $3`,
      [clubId, page.limit, page.offset],
    ),
    db.query('SELECT count(*)::int AS total FROM club_members WHERE club_id = $1', [clubId]),
  ]);
  return {
    members: found.rows.map((r) => ({ userId: r.user_id, username: r.username, role: r.role, joinedAt: r.joined_at })),
    total: counted.rows[0].total,
  };
}

/** Adds a member and counts them, under the club's lock; false when they already were one. */
export async function addMember(tx: Queryable, clubId: string, userId: string, now: Date): Promise<boolean> {
  const { rowCount } = await tx.query(
    `WITH m AS (INSERT INTO club_members (club_id, user_id, role, joined_at) VALUES ($1, $2, 'member', $3)
                ON CONFLICT DO NOTHING RETURNING club_id)
     UPDATE clubs SET member_count = member_count + 1 WHERE id IN (SELECT club_id FROM m)`,
    [clubId, userId, now],
  );
  return rowCount === 1;
}

/** Removes a member (never the owner) and uncounts them; false when they were not one. */
export async function removeMember(tx: Queryable, clubId: string, userId: string): Promise<boolean> {
  const { rowCount } = await tx.query(
    `WITH m AS (DELETE FROM club_members WHERE club_id = $1 AND user_id = $2 AND role = 'member' RETURNING club_id)
     UPDATE clubs SET member_count = member_count - 1 WHERE id IN (SELECT club_id FROM m)`,
    [clubId, userId],
  );
  return rowCount === 1;
}

const INVITATION = `SELECT i.club_id, i.user_id, u.username, i.invited_at FROM club_invitations i JOIN users u ON u.id = i.user_id`;
const toInvitation = (r: any): InvitationRecord => ({ clubId: r.club_id, userId: r.user_id, username: r.username, invitedAt: r.invited_at });

/** The user's invitation to the club made after `since` (an older one has lapsed). */
export async function findInvitation(db: Queryable, clubId: string, userId: string, since: Date): Promise<InvitationRecord | undefined> {
  const { rows } = await db.query(`${INVITATION} WHERE i.club_id = $1 AND i.user_id = $2 AND i.invited_at > $3`, [clubId, userId, since]);
  return rows[0] && toInvitation(rows[0]);
}

/** Invites the user, replacing a lapsed invitation. */
export async function putInvitation(tx: Queryable, i: { clubId: string; userId: string; invitedBy: string; now: Date }): Promise<InvitationRecord> {
  await tx.query(
    `INSERT INTO club_invitations (club_id, user_id, invited_by, invited_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (club_id, user_id) DO UPDATE SET invited_by = excluded.invited_by, invited_at = excluded.invited_at`,
    [i.clubId, i.userId, i.invitedBy, i.now],
  );
  const { rows } = await tx.query(`${INVITATION} WHERE i.club_id = $1 AND i.user_id = $2`, [i.clubId, i.userId]);
  return toInvitation(rows[0]);
}

export async function deleteInvitation(tx: Queryable, clubId: string, userId: string): Promise<void> {
  await tx.query('DELETE FROM club_invitations WHERE club_id = $1 AND user_id = $2', [clubId, userId]);
}

/** Deletes the club with its memberships and invitations. */
export async function deleteClub(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM clubs WHERE id = $1', [id]);
}
