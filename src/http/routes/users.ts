import { z } from 'zod';
import { EmailChangeBody, EmailChangeResult, PasswordChangeBody } from '../../services/accounts.ts';
import type { Services } from '../../services/index.ts';
import { PrivateProfile, ProfilePatchBody, PublicProfile } from '../../services/users.ts';
import { paginate } from '../pagination.ts';
import { HttpAnswer, route, type Route } from '../route.ts';
import { pageQuery } from '../validate.ts';

const tags = ['Users'];

export const SearchQuery = z.object({
  q: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a single string') })
    .min(1, 'must be 1 to 20 characters')
    .max(20, 'must be 1 to 20 characters')
    // No username holds one, and PostgreSQL text cannot hold NUL.
    .refine((q) => !/\p{Cc}/u.test(q), 'must not contain control characters'),
  ...pageQuery,
});

// Literal paths (/users/me, /users/search) come before /users/:id, which would match them too.
export function userRoutes({ users, accounts }: Services): Route[] {
  return [
    route({
      method: 'get',
      path: '/users/me',
      operationId: 'getMe',
      summary: 'The private profile of the caller',
      tags,
      scope: 'account:read',
      auth: 'required',
      response: PrivateProfile,
      handler: ({ user }) => users.getMe(user!.id),
    }),
    route({
      method: 'patch',
      path: '/users/me',
      operationId: 'updateMe',
      summary: 'Change the profile of the caller (full_name, avatar_url, country, username)',
      tags,
      scope: 'session',
      auth: 'required',
      body: ProfilePatchBody,
      response: PrivateProfile,
      errors: ['USERNAME_ALREADY_EXISTS'],
      handler: ({ user, body }) => users.updateMe(user!.id, body),
    }),
    route({
      method: 'post',
      path: '/users/me/password',
      operationId: 'changePassword',
      envelope: 'message',
      summary: 'Change the password of the caller, given the current one; ends every other session of the account',
      description:
        'The session that asks goes on; every other session of the account ends (its tokens stop working and its sockets close), ' +
        'and so does every personal access token of the account. A personal token cannot call this (**403** `SESSION_REQUIRED`). ' +
        'A wrong `current_password` is **403** `FORBIDDEN` and changes nothing; it counts as a failed login of the account, ' +
        'and while the account is locked (5 failures of login and password checks within 5 minutes) the change answers ' +
        '**429** `TOO_MANY_ATTEMPTS` with `Retry-After`, as the login does.',
      tags,
      scope: 'session',
      auth: 'required',
      limit: 'accountChange',
      body: PasswordChangeBody,
      errors: ['FORBIDDEN', 'SESSION_REQUIRED', 'TOO_MANY_ATTEMPTS'],
      handler: async ({ user, body, req }) => {
        await accounts.changePassword(user!, body, req.ip ?? 'unknown');
        return new HttpAnswer(200, { success: true, message: 'Password changed. Your other sessions have ended.' });
      },
    }),
    route({
      method: 'post',
      path: '/users/me/email',
      operationId: 'changeEmail',
      envelope: 'message',
      summary: 'Change the email address of the caller, given the password: it takes effect once the new address is confirmed',
      description:
        'A confirmation link is mailed to the new address and a notice (with no link that acts) to the current one; the account ' +
        'keeps its address, for login and for every mail, until the link is opened (`POST /auth/verify` with its token, which ' +
        'then answers the new address, confirmed; **409** `EMAIL_ALREADY_EXISTS` if another account has taken it meanwhile). ' +
        'The answer is the account\'s address as it stands and `pending_email`, the new one. A newer change replaces one still ' +
        'waiting (its link stops working); asking for the current address cancels it, and so does a password change or reset. ' +
        'A wrong `password` is **403** `FORBIDDEN`; an address another account has is **409**. ' +
        'A personal token cannot call this (**403** `SESSION_REQUIRED`). The password is checked as a login: a wrong one counts ' +
        'as a failed login of the account, and a locked account is **429** `TOO_MANY_ATTEMPTS`.',
      tags,
      scope: 'session',
      auth: 'required',
      limit: 'accountChange',
      body: EmailChangeBody,
      response: EmailChangeResult,
      errors: ['FORBIDDEN', 'SESSION_REQUIRED', 'EMAIL_ALREADY_EXISTS', 'TOO_MANY_ATTEMPTS'],
      handler: async ({ user, body, req }) => {
        const data = await accounts.changeEmail(user!, body, req.ip ?? 'unknown');
        const message = data.pending_email
          ? `Open the link mailed to ${data.pending_email} to confirm it; until then your email stays ${data.email}.`
          : 'Your email stays as it is; no change is waiting.';
        return new HttpAnswer(200, { success: true, data, message });
      },
    }),
    route({
      method: 'get',
      path: '/users/by-username/:username',
      operationId: 'getUserByUsername',
      summary: 'The public profile of the user with this username (case-insensitive); no token needed',
      tags,
      scope: 'public',
      auth: 'optional',
      response: PublicProfile,
      errors: ['USER_NOT_FOUND'],
      handler: ({ params }) => users.getPublicByUsername(params.username),
    }),
    route({
      method: 'get',
      path: '/users/search',
      operationId: 'searchUsers',
      summary: 'Users whose username starts with q (case-insensitive), by username',
      tags,
      scope: 'public',
      auth: 'required',
      query: SearchQuery,
      response: z.array(PublicProfile),
      envelope: 'list',
      handler: async ({ query }) => {
        const page = { page: query.page, limit: query.limit };
        const { users: found, total } = await users.search(query.q, page);
        return new HttpAnswer(200, { success: true, data: found, pagination: paginate(page, total) });
      },
    }),
    route({
      method: 'get',
      path: '/users/:id',
      operationId: 'getUser',
      ids: { id: 'USER_NOT_FOUND' },
      summary: 'The public profile of a user; no token needed',
      tags,
      scope: 'public',
      auth: 'optional',
      response: PublicProfile,
      errors: ['USER_NOT_FOUND'],
      handler: ({ params }) => users.getPublic(params.id),
    }),
    route({
      method: 'get',
      path: '/users/:id/avatar.svg',
      operationId: 'getAvatar',
      ids: { id: 'USER_NOT_FOUND' },
      envelope: 'raw',
      contentType: 'image/svg+xml',
      summary: 'The generated default avatar of a user (SVG)',
      tags,
      auth: 'none',
      errors: ['USER_NOT_FOUND'],
      handler: async ({ params }) =>
        new HttpAnswer(200, await users.avatarSvg(params.id), {
          'Content-Type': 'image/svg+xml',
          // It changes only with the username; after an hour clients revalidate (Express adds an ETag).
          'Cache-Control': 'public, max-age=3600',
          // An SVG opened directly is a document: it must not be able to run anything.
          'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
          'X-Content-Type-Options': 'nosniff',
        }),
    }),
  ];
}
