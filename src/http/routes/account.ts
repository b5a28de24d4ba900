import { z } from 'zod';
import type { Services } from '../../services/index.ts';
import { CreatedPersonalToken, CreatePersonalTokenBody, PersonalTokenView } from '../../services/personalTokens.ts';
import { paginate } from '../pagination.ts';
import { HttpAnswer, route, type Route } from '../route.ts';
import { pageQuery } from '../validate.ts';

const tags = ['Personal access tokens'];
const PageQuery = z.object(pageQuery);
const SESSION_ONLY =
  'Needs the access token of a signed-in session: a personal access token is refused with **403** `SESSION_REQUIRED`.';

/** DESIGN 2.12: the caller's personal access tokens, for scripts and bots. */
export function accountRoutes({ personalTokens }: Services): Route[] {
  return [
    route({
      method: 'post',
      path: '/account/tokens',
      operationId: 'createPersonalToken',
      summary: 'Make a personal access token (`cst_…`) with scopes; the token is shown only in this answer',
      description:
        `${SESSION_ONLY} The token works wherever an access token does (\`Authorization: Bearer cst_…\`, the game stream, ` +
        'the realtime channel, rooms), limited to its `scopes`; a call outside them is **403** `MISSING_SCOPE` with ' +
        '`details.scope`. Only a hash is stored. At most 50 per user (**409** `TOKEN_LIMIT`). It ends when deleted, at ' +
        '`expires_at`, or when the password is changed or reset; logging out does not end it.',
      tags,
      scope: 'session',
      auth: 'required',
      body: CreatePersonalTokenBody,
      status: 201,
      response: CreatedPersonalToken,
      errors: ['SESSION_REQUIRED', 'TOKEN_LIMIT'],
      handler: ({ user, body }) => personalTokens.create(user!, body),
    }),
    route({
      method: 'get',
      path: '/account/tokens',
      operationId: 'listPersonalTokens',
      summary: 'Your personal access tokens, newest first (without the tokens themselves)',
      description: SESSION_ONLY,
      tags,
      scope: 'session',
      auth: 'required',
      query: PageQuery,
      envelope: 'list',
      response: z.array(PersonalTokenView),
      errors: ['SESSION_REQUIRED'],
      handler: async ({ user, query }) => {
        const page = { page: query.page, limit: query.limit };
        const { tokens, total } = await personalTokens.list(user!, page);
        return new HttpAnswer(200, { success: true, data: tokens, pagination: paginate(page, total) });
      },
    }),
    route({
      method: 'delete',
      path: '/account/tokens/:id',
      operationId: 'deletePersonalToken',
      ids: { id: 'TOKEN_NOT_FOUND' },
      summary: 'Delete one of your personal access tokens: it stops working at once, on every node',
      description: `${SESSION_ONLY} Another user's token, or an unknown id, is **404** \`TOKEN_NOT_FOUND\`.`,
      tags,
      scope: 'session',
      auth: 'required',
      status: 204,
      errors: ['SESSION_REQUIRED', 'TOKEN_NOT_FOUND'],
      handler: async ({ user, params }) => {
        await personalTokens.remove(user!, params.id);
        return new HttpAnswer(204);
      },
    }),
  ];
}
