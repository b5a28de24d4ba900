import type { AppContext } from '../context.ts';
import * as repo from '../db/clubs.ts';
import { withTransaction, type Queryable } from '../db/pool.ts';
import { findUserById } from '../db/users.ts';
import { parseId } from '../domain/ids.ts';
import { AppError, validationError } from '../errors.ts';
import { formatClub, formatInvitation, formatMember, type ClubInvitationView, type ClubView, type CreateClubBody, type InviteBody } from './clubViews.ts';
import { bind } from './bind.ts';
import { userNotifier } from './userEvents.ts';
import { emit } from './webhooks.ts';

/** DESIGN 2.10: a user owns at most this many clubs. */
export const MAX_OWNED_CLUBS = 10;
/** An invitation older than this has lapsed: it counts as absent. */
export const INVITATION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export const CLUB_SORTS = ['members', 'created_at', 'name'] as const;
export type ClubSort = (typeof CLUB_SORTS)[number];

export type ListClubsInput = {
  q?: string;
  mine?: boolean;
  /** `field` (ordered by `order`) or `-field` (descending whatever `order` says). */
  sort?: ClubSort | `-${ClubSort}`;
  order?: 'asc' | 'desc';
  page: number;
  limit: number;
};

const clubNotFound = () => new AppError('CLUB_NOT_FOUND', 'Club not found');
const userNotFound = () => new AppError('USER_NOT_FOUND', 'User not found');

/** DESIGN 2.8: a malformed id is an unknown id. */
function clubIdOf(id: string): string {
  const parsed = parseId(id);
  if (!parsed) throw clubNotFound();
  return parsed;
}

/** What the club use cases work with. */
export type ClubsDeps = Pick<AppContext, 'pool' | 'clock' | 'events'>;

const now = (d: ClubsDeps) => new Date(d.clock.now());
const viewer = (d: ClubsDeps, userId: string | undefined): repo.Viewer => ({
  userId: userId ?? null,
  invitedSince: new Date(d.clock.now() - INVITATION_TTL_MS),
});

async function view(d: ClubsDeps, db: Queryable, id: string, userId: string | undefined): Promise<ClubView> {
  const club = await repo.findClub(db, id, viewer(d, userId));
  if (!club) throw clubNotFound();
  return formatClub(club);
}

/** Runs a change of one club under its row lock (joins, leaves, invitations and deletion queue up per club). */
function withClub<T>(d: ClubsDeps, id: string, work: (tx: Queryable, club: repo.ClubRow) => Promise<T>): Promise<T> {
  const clubId = clubIdOf(id);
  return withTransaction(d.pool, async (tx) => {
    const club = await repo.lockClub(tx, clubId);
    if (!club) throw clubNotFound();
    return work(tx, club);
  });
}

export async function create(d: ClubsDeps, userId: string, body: CreateClubBody): Promise<ClubView> {
  return withTransaction(d.pool, async (tx) => {
    const created = await repo.insertClub(tx, { ...body, ownerId: userId, now: now(d), maxOwned: MAX_OWNED_CLUBS });
    if (!created.ok && created.error === 'limit') throw new AppError('CLUB_LIMIT', `A user owns at most ${MAX_OWNED_CLUBS} clubs`);
    if (!created.ok) throw new AppError('CLUB_NAME_TAKEN', 'A club of this name already exists');
    return view(d, tx, created.value, userId);
  });
}

export async function list(d: ClubsDeps, userId: string | undefined, q: ListClubsInput): Promise<{ clubs: ClubView[]; total: number }> {
  if (q.mine && !userId) throw new AppError('UNAUTHORIZED', 'mine=true needs an access token');
  const descending = q.sort?.startsWith('-');
  const field = (q.sort?.replace(/^-/, '') ?? 'members') as ClubSort;
  // By name reads A to Z unless asked otherwise; counts and dates read highest/newest first.
  const direction = descending ? 'desc' : (q.order ?? (field === 'name' ? 'asc' : 'desc'));
  const { clubs, total } = await repo.listClubs(
    d.pool,
    viewer(d, userId),
    { q: q.q || undefined, memberId: q.mine ? userId : undefined },
    { field, direction },
    { limit: q.limit, offset: (q.page - 1) * q.limit },
  );
  return { clubs: clubs.map(formatClub), total };
}

export const get = (d: ClubsDeps, userId: string | undefined, id: string): Promise<ClubView> => view(d, d.pool, clubIdOf(id), userId);

/** Public like every club read (DESIGN 2.10): the owner and the members, not the invitees (they are no members yet). */
export async function members(d: ClubsDeps, id: string, page: { page: number; limit: number }) {
  const clubId = clubIdOf(id);
  if (!(await repo.findClub(d.pool, clubId, viewer(d, undefined)))) throw clubNotFound();
  const { members, total } = await repo.listMembers(d.pool, clubId, { limit: page.limit, offset: (page.page - 1) * page.limit });
  return { members: members.map(formatMember), total };
}

/** Open club or a pending invitation: a member (the invitation is used up); already one: as is. */
export const join = (d: ClubsDeps, userId: string, id: string): Promise<ClubView> =>
  withClub(d, id, async (tx, club) => {
    if (!(await repo.findMemberRole(tx, club.id, userId))) {
      const invited = await repo.findInvitation(tx, club.id, userId, viewer(d, userId).invitedSince);
      if (!club.open && !invited) throw new AppError('FORBIDDEN', 'This club is closed: joining needs an invitation');
      await repo.addMember(tx, club.id, userId, now(d));
      await repo.deleteInvitation(tx, club.id, userId);
    }
    return view(d, tx, club.id, userId);
  });

export const leave = (d: ClubsDeps, userId: string, id: string): Promise<void> =>
  withClub(d, id, async (tx, club) => {
    if (club.ownerId === userId) throw new AppError('CLUB_OWNER_CANNOT_LEAVE', 'The owner cannot leave the club; delete it instead');
    if (!(await repo.removeMember(tx, club.id, userId))) throw new AppError('NOT_FOUND', 'You are not a member of this club');
  });

/**
 * Checks in the order of DESIGN 2.10's list: the club (404), its owner (403), yourself (400),
 * the invitee (404), a member (409); then an invitation pending answers as is, else a new one
 * goes out: the webhook in its transaction, the user channel once it is committed.
 */
export async function invite(d: ClubsDeps, userId: string, id: string, body: InviteBody): Promise<{ created: boolean; invitation: ClubInvitationView }> {
  const inviteeId = parseId(body.user_id);
  const result = await withClub(d, id, async (tx, club) => {
    if (club.ownerId !== userId) throw new AppError('FORBIDDEN', 'Only the owner of a club invites');
    if (inviteeId === userId) throw validationError('user_id', 'must not be yourself');
    const invitee = inviteeId ? await findUserById(tx, inviteeId) : undefined;
    if (!invitee) throw userNotFound();
    if (await repo.findMemberRole(tx, club.id, invitee.id)) throw new AppError('ALREADY_MEMBER', 'This user is already a member of the club');
    const pending = await repo.findInvitation(tx, club.id, invitee.id, viewer(d, invitee.id).invitedSince);
    if (pending) return { created: false, invitation: pending, event: undefined };
    const invitation = await repo.putInvitation(tx, { clubId: club.id, userId: invitee.id, invitedBy: userId, now: now(d) });
    const inviter = await findUserById(tx, userId);
    const event = { club: { id: club.id, name: club.name }, invited_by: { id: userId, username: inviter!.username } };
    await emit(tx, 'club.invite', [invitee.id], event);
    return { created: true, invitation, event };
  });
  if (result.event) userNotifier(d)(result.invitation.userId, { type: 'club_invite', ...result.event });
  return { created: result.created, invitation: formatInvitation(result.invitation) };
}

export const remove = (d: ClubsDeps, userId: string, id: string): Promise<void> =>
  withClub(d, id, async (tx, club) => {
    if (club.ownerId !== userId) throw new AppError('FORBIDDEN', 'Only the owner of a club deletes it');
    await repo.deleteClub(tx, club.id);
  });

export type Clubs = ReturnType<typeof createClubs>;

export function createClubs(d: ClubsDeps) {
  return bind(d, { create, list, get, members, join, leave, invite, remove });
}
