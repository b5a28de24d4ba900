import { z } from 'zod';
import type { AppContext } from '../context.ts';
import * as repo from '../db/friends.ts';
import { withTransaction } from '../db/pool.ts';
import { findUserById } from '../db/users.ts';
import { parseId } from '../domain/ids.ts';
import { FRIEND_STATUSES, type FriendStatus } from '../domain/statuses.ts';
import { AppError } from '../errors.ts';
import type { UserEvent } from './channelEvents.ts';
import type { Presence } from './presence.ts';
import { bind } from './bind.ts';
import { userNotifier } from './userEvents.ts';
import { DEFAULT_RATING, defaultAvatarUrl } from './users.ts';
import { emit } from './webhooks.ts';

/** DESIGN 2.10's limits: pending requests a user may have out, and friends anyone may have. */
export const MAX_OUTGOING_REQUESTS = 100;
export const MAX_FRIENDS = 1000;

const Who = z.object({ id: z.uuid(), username: z.string() });
export const FriendshipView = z.object({
  user: Who,
  status: z.enum(['outgoing', 'friends']),
  since: z.iso.datetime().meta({ description: 'when the relation reached its current status' }),
});
export type FriendshipView = z.infer<typeof FriendshipView>;

export const FriendListItem = z.object({
  user: z.object({ id: z.uuid(), username: z.string(), avatar_url: z.url(), rating: z.number().int() }),
  status: z.enum(FRIEND_STATUSES),
  since: z.iso.datetime(),
  online: z.boolean().nullable().meta({
    description: 'friends only: a live socket to the service, or an authenticated request in the last 5 minutes; null on requests (incoming, outgoing)',
  }),
});
export type FriendListItem = z.infer<typeof FriendListItem>;

const userNotFound = () => new AppError('USER_NOT_FOUND', 'User not found');

/** What the friend use cases work with: the context's parts and who is online. */
export type FriendsDeps = Pick<AppContext, 'pool' | 'clock' | 'config' | 'events'> & { presence: Pick<Presence, 'isOnline'> };

/** Asks `targetId` to be friends, or accepts their request. `created` when a request was made. */
export async function request(d: FriendsDeps, userId: string, requestedId: string): Promise<{ created: boolean; view: FriendshipView }> {
  const targetId = parseId(requestedId);
  if (!targetId) throw userNotFound();
  if (targetId === userId) throw new AppError('VALIDATION_ERROR', 'Invalid request data', { user_id: ['must not be your own id'] });
  const outcome = await withTransaction(d.pool, async (tx) => {
    const me = await findUserById(tx, userId);
    const them = await findUserById(tx, targetId);
    if (!me || !them) throw userNotFound();
    const user = { id: them.id, username: them.username };
    const from = { id: me.id, username: me.username };
    await repo.lockFriendsOf(tx, userId, targetId);
    const current = await repo.findFriendship(tx, userId, targetId);
    const now = new Date(d.clock.now());
    if (!current) {
      if ((await repo.countOutgoing(tx, userId)) >= MAX_OUTGOING_REQUESTS) {
        throw new AppError('FRIEND_LIMIT', `You have ${MAX_OUTGOING_REQUESTS} pending friend requests; wait for answers or withdraw some`);
      }
      await repo.insertRequest(tx, userId, targetId, now);
      const view = { user, status: 'outgoing' as const, since: now.toISOString() };
      // A request withdrawn (or declined) and sent again is made, but not news: the asked user
      // was told lately and sees it in their list, while a loop of re-sends must not ping them.
      const quietSince = new Date(now.getTime() - d.config.friendRequestCooldownMs);
      if (!(await repo.claimRequestNotice(tx, userId, targetId, now, quietSince))) return { created: true, view };
      await emit(tx, 'friend.request', [targetId], { from });
      const event: UserEvent = { type: 'friend_request', from };
      return { created: true, view, event };
    }
    if (current.status === 'friends' || current.requestedBy === userId) {
      const status = current.status === 'friends' ? ('friends' as const) : ('outgoing' as const);
      return { created: false, view: { user, status, since: current.since.toISOString() } };
    }
    // They had asked: this is the acceptance.
    for (const [id, who] of [[userId, 'You have'], [targetId, 'They have']] as const) {
      if ((await repo.countFriends(tx, id)) >= MAX_FRIENDS) throw new AppError('FRIEND_LIMIT', `${who} ${MAX_FRIENDS} friends already`);
    }
    await repo.acceptRequest(tx, userId, targetId, now);
    await emit(tx, 'friend.accepted', [targetId], { user: from });
    const event: UserEvent = { type: 'friend_accepted', user: from };
    return { created: false, view: { user, status: 'friends' as const, since: now.toISOString() }, event };
  });
  if ('event' in outcome && outcome.event) userNotifier(d)(targetId, outcome.event);
  return { created: outcome.created, view: outcome.view };
}

/** Ends a friendship, withdraws the caller's request or declines theirs. */
export async function remove(d: FriendsDeps, userId: string, requestedId: string): Promise<void> {
  const targetId = parseId(requestedId);
  if (!targetId || !(await findUserById(d.pool, targetId))) throw userNotFound();
  const removed = await withTransaction(d.pool, async (tx) => {
    await repo.lockFriendsOf(tx, userId, targetId);
    return repo.deleteFriendship(tx, userId, targetId);
  });
  if (!removed) throw new AppError('NOT_FOUND', 'You have no friendship or request with this user');
}

export async function list(
  d: FriendsDeps,
  userId: string,
  q: { status: FriendStatus; page: number; limit: number; order?: 'asc' | 'desc' },
): Promise<{ items: FriendListItem[]; total: number }> {
  const { rows, total } = await repo.listFriends(d.pool, {
    userId,
    status: q.status,
    limit: q.limit,
    offset: (q.page - 1) * q.limit,
    ascending: q.order === 'asc',
  });
  return {
    total,
    items: rows.map((r) => ({
      user: { id: r.id, username: r.username, avatar_url: r.avatarUrl ?? defaultAvatarUrl(d.config.publicUrl, r.id), rating: r.rating ?? DEFAULT_RATING },
      status: r.status,
      since: r.since.toISOString(),
      // Presence is for friends: a request, which anyone can send, must not buy a view of it.
      online: r.status === 'friends' ? d.presence.isOnline(r.lastSeenAt) : null,
    })),
  };
}

export type Friends = ReturnType<typeof createFriends>;

/** Friends, mutual and by request (DESIGN 2.10). Events go out only when a relation changes. */
export function createFriends(ctx: Omit<FriendsDeps, 'presence'>, presence: FriendsDeps['presence']) {
  const d: FriendsDeps = { pool: ctx.pool, clock: ctx.clock, config: ctx.config, events: ctx.events, presence };
  return bind(d, { request, remove, list });
}
