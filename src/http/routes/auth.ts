import { AppError } from '../../errors.ts';
import {
  EmailBody,
  LoginBody,
  LoginResult,
  PasswordUpdateBody,
  RefreshBody,
  SignupBody,
  SignupResult,
  TokenBody,
  TokenPairResult,
  VerifyResult,
} from '../../services/accounts.ts';
import type { Services } from '../../services/index.ts';
import { HttpAnswer, route, type Route } from '../route.ts';

const tags = ['Authentication'];
/** `{success, message}` and, when there is data, `{success, data, message}`. */
const withMessage = (status: number, message: string, data?: unknown) =>
  new HttpAnswer(status, data === undefined ? { success: true, message } : { success: true, data, message });

export function authRoutes({ accounts }: Services): Route[] {
  return [
    route({
      method: 'post',
      path: '/auth/signup',
      operationId: 'signUp',
      envelope: 'message',
      summary: 'Create an account; a verification email is sent',
      tags,
      auth: 'none',
      body: SignupBody,
      status: 201,
      response: SignupResult,
      errors: ['EMAIL_ALREADY_EXISTS', 'USERNAME_ALREADY_EXISTS'],
      handler: async ({ body }) =>
        withMessage(201, 'Account created. Check your email to confirm your address.', await accounts.signup(body)),
    }),
    route({
      method: 'post',
      path: '/auth/login',
      operationId: 'logIn',
      summary: 'Log in with email and password',
      description:
        '`email` holds the address or the username. A username is compared in its plain form (NFKC, so full-width letters ' +
        'are plain ones), trimmed and in any case; usernames are ASCII, so a spelling that stays non-ASCII (`İ`, `ı`) reaches no ' +
        'account. Failed attempts count against the account, however it was named: after 5 within 5 minutes (wrong ' +
        'passwords given to `POST /users/me/password` and `POST /users/me/email` included), or 20 from one client address, ' +
        'login answers **429** `TOO_MANY_ATTEMPTS` with `Retry-After`, even to the right password. A name or address that ' +
        'reaches no account is counted the same way under its normal form, so the answers do not tell whether it exists.',
      tags,
      auth: 'none',
      body: LoginBody,
      response: LoginResult,
      errors: ['INVALID_CREDENTIALS', 'TOO_MANY_ATTEMPTS'],
      handler: ({ body, req }) => accounts.login(body, req.ip ?? 'unknown'),
    }),
    route({
      method: 'get',
      path: '/auth/oauth/google',
      operationId: 'logInWithGoogle',
      summary: 'Log in with Google (coming soon): 501 NOT_IMPLEMENTED',
      description:
        'Announced by the interface and not available yet: the route answers **501** `NOT_IMPLEMENTED` ("coming soon") ' +
        'and redirects nowhere. Log in with email and password (`POST /auth/login`).',
      tags,
      auth: 'none',
      status: 501,
      errors: ['NOT_IMPLEMENTED'],
      handler: async () => {
        throw new AppError('NOT_IMPLEMENTED', 'Login with Google is coming soon');
      },
    }),
    route({
      method: 'post',
      path: '/auth/logout',
      operationId: 'logOut',
      summary: 'End the session of the presented access token',
      tags,
      scope: 'session',
      auth: 'required',
      status: 204,
      handler: async ({ user }) => {
        await accounts.logout(user!);
        return new HttpAnswer(204);
      },
    }),
    route({
      method: 'post',
      path: '/auth/refresh',
      operationId: 'refreshSession',
      summary: 'Exchange a refresh token for a new token pair (single use)',
      tags,
      auth: 'none',
      body: RefreshBody,
      response: TokenPairResult,
      errors: ['UNAUTHORIZED'],
      handler: ({ body }) => accounts.refresh(body.refresh_token),
    }),
    route({
      method: 'post',
      path: '/auth/password/reset',
      operationId: 'requestPasswordReset',
      envelope: 'message',
      summary: 'Mail a password reset link (same answer whether the account exists or not)',
      tags,
      auth: 'none',
      body: EmailBody,
      handler: async ({ body }) => {
        accounts.requestPasswordReset(body.email);
        return withMessage(200, 'If an account exists for this email, a password reset link has been sent.');
      },
    }),
    route({
      method: 'post',
      path: '/auth/password/update',
      operationId: 'resetPassword',
      envelope: 'message',
      summary: 'Set a new password with a reset token; ends every session of the account',
      tags,
      auth: 'none',
      body: PasswordUpdateBody,
      errors: ['INVALID_TOKEN'],
      handler: async ({ body }) => {
        await accounts.updatePassword(body);
        return withMessage(200, 'Password updated. Please log in again.');
      },
    }),
    route({
      method: 'post',
      path: '/auth/verify',
      operationId: 'verifyEmail',
      envelope: 'message',
      summary: 'Confirm an email address with the token from the verification email',
      description:
        'The token of a signup\'s (or a resend\'s) mail confirms the account\'s address; the token mailed to the new address ' +
        'of an email change (`POST /users/me/email`) makes that address the account\'s, confirmed, and ends the links mailed ' +
        'to the old one. If another account has taken that address meanwhile, **409** `EMAIL_ALREADY_EXISTS` and nothing changes.',
      tags,
      auth: 'none',
      body: TokenBody,
      response: VerifyResult,
      errors: ['INVALID_TOKEN', 'EMAIL_ALREADY_EXISTS'],
      handler: async ({ body }) => withMessage(200, 'Email address confirmed.', await accounts.verifyEmail(body.token)),
    }),
    route({
      method: 'post',
      path: '/auth/verify/resend',
      operationId: 'resendVerification',
      envelope: 'message',
      summary: 'Mail a new verification link (same answer whether the account exists or not)',
      tags,
      auth: 'none',
      body: EmailBody,
      handler: async ({ body }) => {
        accounts.resendVerification(body.email);
        return withMessage(200, 'If an unconfirmed account exists for this email, a new confirmation link has been sent.');
      },
    }),
  ];
}
