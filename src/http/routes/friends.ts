import { z } from 'zod';
import { FRIEND_STATUSES } from '../../domain/statuses.ts';
import { FriendListItem, FriendshipView } from '../../services/friends.ts';
import type { Services } from '../../services/index.ts';
import { paginate } from '../pagination.ts';
import { HttpAnswer, route, type Route } from '../route.ts';
import { pageQuery } from '../validate.ts';

const tags = ['Friends'];

export const ListFriendsQuery = z.object({
  status: z.enum(FRIEND_STATUSES, { error: `must be one of ${FRIEND_STATUSES.join(', ')}` }).default('friends'),
  ...pageQuery,
  order: z.enum(['asc', 'desc'], { error: 'must be one of asc, desc' }).optional().meta({ description: 'by since; default desc (newest first)' }),
});

/** DESIGN 2.10: mutual friends, by request. */
export function friendRoutes({ friends }: Services): Route[] {
  return [
    route({
      method: 'get',
      path: '/friends',
      operationId: 'listFriends',
      summary: 'Your friends (status=friends, the default), requests to you (incoming) or from you (outgoing), newest first',
      tags,
      scope: 'account:read',
      auth: 'required',
      query: ListFriendsQuery,
      envelope: 'list',
      response: z.array(FriendListItem),
      handler: async ({ user, query }) => {
        const { items, total } = await friends.list(user!.id, query);
        return new HttpAnswer(200, { success: true, data: items, pagination: paginate(query, total) });
      },
    }),
    route({
      method: 'post',
      path: '/friends/:user_id',
      operationId: 'requestFriend',
      ids: { user_id: 'USER_NOT_FOUND' },
      summary: 'Ask a user to be friends (201, status outgoing), or accept their request (200, status friends); 200 with the current state when already asked or friends',
      description:
        'A request tells the asked user (friend.request webhook, friend_request on their user channel) at most once per FRIEND_REQUEST_COOLDOWN_SECONDS (default 24 h) for the same asker: a request withdrawn or declined and sent again within it is made (201) without telling them again.',
      tags,
      scope: 'social:write',
      auth: 'required',
      limit: 'friendRequest',
      status: 201,
      response: FriendshipView,
      also: { 200: { description: "Their request accepted (status friends), or the current state when already asked or friends", response: FriendshipView } },
      errors: ['USER_NOT_FOUND', 'FRIEND_LIMIT'],
      handler: async ({ user, params }) => {
        const { created, view } = await friends.request(user!.id, params.user_id);
        return new HttpAnswer(created ? 201 : 200, { success: true, data: view });
      },
    }),
    route({
      method: 'delete',
      path: '/friends/:user_id',
      operationId: 'removeFriend',
      ids: { user_id: 'USER_NOT_FOUND' },
      summary: 'Unfriend, withdraw your request, or decline theirs (204)',
      tags,
      scope: 'social:write',
      auth: 'required',
      status: 204,
      errors: ['USER_NOT_FOUND', 'NOT_FOUND'],
      handler: async ({ user, params }) => {
        await friends.remove(user!.id, params.user_id);
        return new HttpAnswer(204);
      },
    }),
  ];
}
