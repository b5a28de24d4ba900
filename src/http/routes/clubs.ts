import { z } from 'zod';
import { ClubInvitationView, ClubMemberView, ClubView, CreateClubBody, InviteBody } from '../../services/clubViews.ts';
import { CLUB_SORTS } from '../../services/clubs.ts';
import type { Services } from '../../services/index.ts';
import { paginate } from '../pagination.ts';
import { HttpAnswer, route, type Route } from '../route.ts';
import { pageQuery } from '../validate.ts';

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

export const ListClubsQuery = z.object({
  q: z
    .string({ error: 'must be a single string' })
    .max(100, 'must be at most 100 characters')
    .refine((q) => !/\p{Cc}/u.test(q), 'must not contain control characters')
    .optional()
    .meta({ description: 'a substring of the name, case-insensitive' }),
  mine: oneOf(['true', 'false']).optional().meta({ description: 'true: the clubs the caller owns or belongs to (not invitations); needs a token' }),
  sort: oneOf([...CLUB_SORTS, ...CLUB_SORTS.map((s) => `-${s}` as const)])
    .optional()
    .meta({ description: 'default members; `field` follows `order`, `-field` is descending' }),
  order: oneOf(['asc', 'desc']).optional().meta({ description: 'default desc, asc for sort=name' }),
  ...pageQuery,
});
export type ListClubsQuery = z.infer<typeof ListClubsQuery>;

const PageQuery = z.object(pageQuery);
const tags = ['Clubs'];
/** A token is optional on reads, but one that is invalid, expired or revoked is still refused. */
const READ_ERRORS = ['UNAUTHORIZED', 'CLUB_NOT_FOUND'];

/** DESIGN 2.10 "Clubs": reads are public (the caller's `role` with a token), writes need one. */
export function clubRoutes({ clubs }: Services): Route[] {
  return [
    route({
      method: 'post',
      path: '/clubs',
      operationId: 'createClub',
      summary: 'Create a club; the caller owns it and is its first member',
      tags,
      scope: 'social:write',
      auth: 'required',
      body: CreateClubBody,
      status: 201,
      response: ClubView,
      errors: ['CLUB_NAME_TAKEN', 'CLUB_LIMIT'],
      handler: ({ user, body }) => clubs.create(user!.id, body),
    }),
    route({
      method: 'get',
      path: '/clubs',
      operationId: 'listClubs',
      summary: 'List clubs: by members (default, most first), created_at (newest first) or name (A to Z)',
      tags,
      scope: 'public',
      auth: 'optional',
      query: ListClubsQuery,
      envelope: 'list',
      response: z.array(ClubView),
      errors: ['UNAUTHORIZED'],
      handler: async ({ user, query }) => {
        const page = { page: query.page, limit: query.limit };
        const { clubs: found, total } = await clubs.list(user?.id, { ...query, mine: query.mine === 'true' });
        return new HttpAnswer(200, { success: true, data: found, pagination: paginate(page, total) });
      },
    }),
    route({
      method: 'get',
      path: '/clubs/:id',
      operationId: 'getClub',
      ids: { id: 'CLUB_NOT_FOUND' },
      summary: 'Read a club, with the caller’s role (owner, member, invited or null)',
      tags,
      scope: 'public',
      auth: 'optional',
      response: ClubView,
      errors: READ_ERRORS,
      handler: ({ user, params }) => clubs.get(user?.id, params.id),
    }),
    route({
      method: 'get',
      path: '/clubs/:id/members',
      operationId: 'listClubMembers',
      ids: { id: 'CLUB_NOT_FOUND' },
      summary: 'The members of a club, owner first, then by joining time (public, like every club read; never the invitees)',
      tags,
      scope: 'public',
      auth: 'optional',
      query: PageQuery,
      envelope: 'list',
      response: z.array(ClubMemberView),
      errors: ['CLUB_NOT_FOUND'],
      handler: async ({ params, query }) => {
        const page = { page: query.page, limit: query.limit };
        const { members, total } = await clubs.members(params.id, page);
        return new HttpAnswer(200, { success: true, data: members, pagination: paginate(page, total) });
      },
    }),
    route({
      method: 'post',
      path: '/clubs/:id/join',
      operationId: 'joinClub',
      ids: { id: 'CLUB_NOT_FOUND' },
      summary: 'Join an open club, or a closed one you are invited to (already a member: 200 as is)',
      tags,
      scope: 'social:write',
      auth: 'required',
      response: ClubView,
      errors: ['CLUB_NOT_FOUND', 'FORBIDDEN'],
      handler: ({ user, params }) => clubs.join(user!.id, params.id),
    }),
    route({
      method: 'post',
      path: '/clubs/:id/leave',
      operationId: 'leaveClub',
      ids: { id: 'CLUB_NOT_FOUND' },
      summary: 'Leave a club (its owner cannot: delete it instead)',
      tags,
      scope: 'social:write',
      auth: 'required',
      status: 204,
      errors: ['CLUB_NOT_FOUND', 'CLUB_OWNER_CANNOT_LEAVE', 'NOT_FOUND'],
      handler: async ({ user, params }) => {
        await clubs.leave(user!.id, params.id);
        return new HttpAnswer(204);
      },
    }),
    route({
      method: 'post',
      path: '/clubs/:id/invites',
      operationId: 'inviteToClub',
      ids: { id: 'CLUB_NOT_FOUND' },
      summary: 'Invite a user (the owner only): 201 and club.invite to them, or 200 when already invited; lapses after 30 days',
      tags,
      scope: 'social:write',
      auth: 'required',
      limit: 'clubInvite',
      body: InviteBody,
      status: 201,
      response: ClubInvitationView,
      also: { 200: { description: 'Already invited: the pending invitation', response: ClubInvitationView } },
      errors: ['CLUB_NOT_FOUND', 'FORBIDDEN', 'USER_NOT_FOUND', 'ALREADY_MEMBER'],
      handler: async ({ user, params, body }) => {
        const { created, invitation } = await clubs.invite(user!.id, params.id, body);
        return new HttpAnswer(created ? 201 : 200, { success: true, data: invitation });
      },
    }),
    route({
      method: 'delete',
      path: '/clubs/:id',
      operationId: 'deleteClub',
      ids: { id: 'CLUB_NOT_FOUND' },
      summary: 'Delete a club with its memberships and invitations (the owner only)',
      tags,
      scope: 'social:write',
      auth: 'required',
      status: 204,
      errors: ['CLUB_NOT_FOUND', 'FORBIDDEN'],
      handler: async ({ user, params }) => {
        await clubs.remove(user!.id, params.id);
        return new HttpAnswer(204);
      },
    }),
  ];
}
