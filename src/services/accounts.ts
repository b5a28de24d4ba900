import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { z } from 'zod';
import type { DomainCheck } from '../auth/emailDomain.ts';
import { createLoginThrottle, type LoginThrottle } from '../auth/loginThrottle.ts';
import type { Mail, Mailer } from '../auth/mailer.ts';
import { emailChangeNotice } from '../auth/mails.ts';
import { createPasswordHasher, type PasswordHasher } from '../auth/passwords.ts';
import { Email, FullName, parseLoginIdentifier, Password, plainText, requiredString, Username } from '../auth/rules.ts';
import { requireSession, type AuthUser } from '../auth/scopes.ts';
import type { Sessions, TokenPair } from '../auth/sessions.ts';
import { isLiveUserToken, issueUserToken, redeemEmailChangeToken, redeemUserToken, userTokenMail } from '../auth/userTokens.ts';
import type { AppContext } from '../context.ts';
import { deleteUserPersonalTokens } from '../db/personalTokens.ts';
import { withTransaction } from '../db/pool.ts';
import { revokeOtherSessions, revokeUserSessions } from '../db/sessions.ts';
import { revokeUserTokens, type UserTokenPurpose } from '../db/userTokens.ts';
import {
  findProfile,
  findTakenField,
  findUserByEmail,
  findUserById,
  findUserByUsername,
  insertUser,
  markEmailVerified,
  setConfirmedEmail,
  setPasswordHash,
  type TakenField,
  type UserRecord,
} from '../db/users.ts';
import { AppError } from '../errors.ts';
import { bind } from './bind.ts';
import { defaultAvatarUrl, headlineRating, usernameTaken } from './users.ts';

// Request bodies: the same schemas validate requests and document them (OpenAPI).
const OpaqueToken = requiredString().min(1, 'is required').max(512, 'must be at most 512 characters');
export const SignupBody = z.object({ email: Email, password: Password, username: Username, full_name: FullName.nullable().optional() });
export type SignupBody = z.infer<typeof SignupBody>;
// Login checks only the shape: any other mistake is INVALID_CREDENTIALS, like a wrong password.
// `email` holds the address or the username (no username has an `@`).
export const LoginBody = z.object({
  email: plainText().max(254, 'must be at most 254 characters').meta({ description: 'the email address, or the username' }),
  password: requiredString().max(1024, 'must be at most 1024 characters'),
});
export type LoginBody = z.infer<typeof LoginBody>;
export const RefreshBody = z.object({ refresh_token: OpaqueToken });
export const EmailBody = z.object({ email: Email });
export const TokenBody = z.object({ token: OpaqueToken });
export const PasswordUpdateBody = z.object({ token: OpaqueToken, password: Password });
export type PasswordUpdateBody = z.infer<typeof PasswordUpdateBody>;
const CurrentPassword = requiredString().max(1024, 'must be at most 1024 characters');
export const PasswordChangeBody = z.object({ current_password: CurrentPassword, new_password: Password });
export type PasswordChangeBody = z.infer<typeof PasswordChangeBody>;
export const EmailChangeBody = z.object({ password: CurrentPassword, email: Email });
export type EmailChangeBody = z.infer<typeof EmailChangeBody>;
export const EmailChangeResult = z.object({
  email: z.email().meta({ description: "the account's address, which stays until the new one is confirmed" }),
  email_verified: z.boolean().meta({ description: 'whether that address is confirmed' }),
  pending_email: z.email().nullable().meta({ description: 'the new address waiting for its confirmation link to be opened (null: none)' }),
});
export type EmailChangeResult = z.infer<typeof EmailChangeResult>;

// Responses (the interface's account answers).
export const TokenPairResult = z.object({ access_token: z.string(), refresh_token: z.string(), expires_in: z.number().int() });
export const SignupResult = z.object({
  user: z.object({ id: z.uuid(), email: z.email(), username: z.string(), created_at: z.iso.datetime() }),
  session: TokenPairResult,
});
export const LoginResult = z.object({
  user: z.object({ id: z.uuid(), email: z.email(), username: z.string(), avatar_url: z.url(), rating: z.number().int() }),
  session: TokenPairResult.extend({ expires_at: z.iso.datetime() }),
});
export const VerifyResult = z.object({
  user: z.object({ id: z.uuid(), email: z.email(), username: z.string(), email_verified: z.boolean(), created_at: z.iso.datetime() }),
});

/**
 * What the network gives the accounts, injectable so tests can fake the far side; and the
 * password hasher (made from BCRYPT_COST unless given), so a test can count its work.
 */
export type AccountDeps = { mailer: Mailer; domainCheck: DomainCheck; passwords?: PasswordHasher };

/** What the account use cases work with: the context's parts, the sessions, and what `createAccounts` makes once. */
export type AccountsDeps = Pick<AppContext, 'pool' | 'config' | 'log'> &
  Omit<AccountDeps, 'passwords'> & {
    sessions: Sessions;
    passwords: PasswordHasher;
    throttle: LoginThrottle;
    /**
     * Reset and verification requests cannot be told apart by their answer, so someone could use
     * them to flood a stranger's mailbox: a few mails per recipient per hour are enough.
     */
    mailsPerRecipient: RateLimiterAbstract;
    /** Work the answers did not wait for, still running (awaited by `drain`). */
    background: Set<Promise<void>>;
  };

const takenError = (field: TakenField) =>
  field === 'email' ? new AppError('EMAIL_ALREADY_EXISTS', 'An account with this email already exists') : usernameTaken();
const tokenPair = (p: TokenPair) => ({ access_token: p.accessToken, refresh_token: p.refreshToken, expires_in: p.expiresIn });
const wrongPassword = () => new AppError('FORBIDDEN', 'The password is wrong');
const invalidToken = () => new AppError('INVALID_TOKEN', 'This link is invalid, has expired or was already used');

async function sendMail(d: AccountsDeps, mail: Mail): Promise<void> {
  try {
    await d.mailsPerRecipient.consume(mail.to);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return void d.log.warn({ to: mail.to }, 'mail dropped: too many for this recipient');
    throw rejection;
  }
  await d.mailer.send(mail);
}

/** `to`: the user's address unless told (an email change's link goes to the new one). */
const mailToken = (d: AccountsDeps, purpose: UserTokenPurpose, user: UserRecord, token: string, to = user.email) =>
  sendMail(d, userTokenMail(purpose, { to, username: user.username, publicUrl: d.config.publicUrl, token }));

/**
 * Work the answer does not wait for: mail, and the whole of the no-enumeration endpoints, whose
 * answer must not depend on (or take longer for) an existing account.
 */
function inBackground(d: AccountsDeps, what: string, work: () => Promise<void>): void {
  const running = work()
    .catch((err) => d.log.error({ err }, `${what} failed`))
    .finally(() => d.background.delete(running));
  d.background.add(running);
}

/**
 * A signed-in user's password, checked as a login of the account: a wrong one counts against
 * the account's login throttle, and a locked account is refused before the check, so a stolen
 * access token guesses no faster than a login (issue 34, L4).
 */
async function confirmPassword(d: AccountsDeps, user: AuthUser, password: string, clientAddress: string): Promise<UserRecord> {
  const release = await d.throttle.reserve({ userId: user.id }, clientAddress);
  const stored = await findUserById(d.pool, user.id);
  if (!stored || !(await d.passwords.verify(password, stored.passwordHash))) throw wrongPassword();
  await release();
  return stored;
}

async function refuseMissingDomain(d: AccountsDeps, email: string): Promise<void> {
  if (!d.config.emailDomainCheck) return;
  const verdict = await d.domainCheck(email.slice(email.lastIndexOf('@') + 1));
  if (verdict === 'missing') {
    throw new AppError('VALIDATION_ERROR', 'Invalid request data', { email: ['the email domain does not exist'] });
  }
}

export async function signup(d: AccountsDeps, body: SignupBody) {
  await refuseMissingDomain(d, body.email);
  // Checked before hashing to answer quickly; the unique indexes still decide a race.
  const taken = await findTakenField(d.pool, { email: body.email, username: body.username });
  if (taken) throw takenError(taken);
  const passwordHash = await d.passwords.hash(body.password);
  const { user, pair, verifyToken } = await withTransaction(d.pool, async (tx) => {
    const inserted = await insertUser(tx, { email: body.email, username: body.username, passwordHash, fullName: body.full_name || null });
    if (!inserted.ok) throw takenError(inserted.error);
    const user = inserted.value;
    return { user, pair: await d.sessions.open(tx, user), verifyToken: await issueUserToken(tx, user.id, 'verify') };
  });
  inBackground(d, 'verification mail', () => mailToken(d, 'verify', user, verifyToken));
  return {
    user: { id: user.id, email: user.email, username: user.username, created_at: user.createdAt.toISOString() },
    session: tokenPair(pair),
  };
}

export async function login(d: AccountsDeps, body: LoginBody, clientAddress: string) {
  const identifier = parseLoginIdentifier(body.email);
  const user =
    identifier.kind === 'email' ? await findUserByEmail(d.pool, identifier.key) : await findUserByUsername(d.pool, identifier.key);
  // The account counts the attempt, whatever was typed to reach it (issue 34, M3).
  const release = await d.throttle.reserve(user ? { userId: user.id } : { unknown: identifier }, clientAddress);
  // Same work whether or not the account exists (a dummy hash stands in), so same time.
  if (!(await d.passwords.verify(body.password, user?.passwordHash)) || !user) {
    throw new AppError('INVALID_CREDENTIALS', 'Invalid email, username or password');
  }
  await release();
  if (d.passwords.needsRehash(user.passwordHash)) {
    inBackground(d, 'password rehash', async () => setPasswordHash(d.pool, user.id, await d.passwords.hash(body.password)));
  }
  const pair = await withTransaction(d.pool, (tx) => d.sessions.open(tx, user));
  const profile = await findProfile(d.pool, user.id);
  return {
    user: {
      id: user.id,
      email: user.email,
      username: user.username,
      avatar_url: user.avatarUrl ?? defaultAvatarUrl(d.config.publicUrl, user.id),
      rating: headlineRating(profile?.ratings ?? {}),
    },
    session: { ...tokenPair(pair), expires_at: pair.expiresAt.toISOString() },
  };
}

export const refresh = async (d: AccountsDeps, refreshToken: string) => tokenPair(await d.sessions.refresh(refreshToken));

export const logout = (d: AccountsDeps, user: AuthUser) => d.sessions.end(user);

export function requestPasswordReset(d: AccountsDeps, email: string): void {
  inBackground(d, 'password reset request', async () => {
    const user = await findUserByEmail(d.pool, email);
    if (user) await mailToken(d, 'reset', user, await withTransaction(d.pool, (tx) => issueUserToken(tx, user.id, 'reset')));
  });
}

export async function updatePassword(d: AccountsDeps, body: PasswordUpdateBody): Promise<void> {
  // The token first: hashing costs tens of milliseconds, which nobody gets to spend with a bogus token.
  if (!(await isLiveUserToken(d.pool, body.token, 'reset'))) throw invalidToken();
  const passwordHash = await d.passwords.hash(body.password);
  const userId = await withTransaction(d.pool, async (tx) => {
    const userId = await redeemUserToken(tx, body.token, 'reset');
    if (!userId) return undefined;
    await setPasswordHash(tx, userId, passwordHash);
    // The reset link reached the mailbox, which proves the address as well as a verification would.
    await markEmailVerified(tx, userId);
    // Whoever knew the old password may hold sessions, or have made personal tokens: all of
    // them end (DESIGN 2.8, 2.12).
    await revokeUserSessions(tx, userId, 'password_change');
    await deleteUserPersonalTokens(tx, userId);
    // The old mailbox's answer to an email change it did not ask for (its notice says so).
    await revokeUserTokens(tx, userId, 'email_change');
    return userId;
  });
  if (!userId) throw invalidToken();
  await d.sessions.ended(userId, null);
}

/**
 * A signed-in user's new password, given the current one: every other session of the account
 * ends (whoever knew the old password may hold one), and every personal access token; the
 * session that asked goes on.
 */
export async function changePassword(d: AccountsDeps, user: AuthUser, body: PasswordChangeBody, clientAddress: string): Promise<void> {
  requireSession(user);
  await confirmPassword(d, user, body.current_password, clientAddress);
  const passwordHash = await d.passwords.hash(body.new_password);
  const ended = await withTransaction(d.pool, async (tx) => {
    await setPasswordHash(tx, user.id, passwordHash);
    // The personal tokens end too, as at a reset: one may have been made by whoever knew the
    // old password (docs/decisions.md); so does an email change on its way, for the same reason.
    const tokens = await deleteUserPersonalTokens(tx, user.id);
    await revokeUserTokens(tx, user.id, 'email_change');
    return [...(await revokeOtherSessions(tx, user.id, user.sessionId, 'password_change')), ...tokens];
  });
  // A session or a personal token: a revocation names either by its id.
  for (const id of ended) await d.sessions.ended(user.id, id);
}

/**
 * A signed-in user's new email, given their password. It waits for its confirmation (issue 37):
 * the account keeps its address (for login, and for reset links) until the link mailed to the
 * new address is opened (`verifyEmail`), and the old address is told, with nothing in the mail
 * that acts. A newer change replaces one still waiting; asking for the current address cancels it.
 */
export async function changeEmail(d: AccountsDeps, user: AuthUser, body: EmailChangeBody, clientAddress: string): Promise<EmailChangeResult> {
  requireSession(user);
  const stored = await confirmPassword(d, user, body.password, clientAddress);
  const answer = (pending: string | null) => ({ email: stored.email, email_verified: stored.emailVerified, pending_email: pending });
  if (body.email === stored.email) {
    await revokeUserTokens(d.pool, user.id, 'email_change');
    return answer(null);
  }
  await refuseMissingDomain(d, body.email);
  // Checked now to answer at once; checked again when the link is opened (someone may have taken it since).
  if (await findTakenField(d.pool, { email: body.email, exceptId: user.id })) throw takenError('email');
  const token = await withTransaction(d.pool, (tx) => issueUserToken(tx, user.id, 'email_change', body.email));
  inBackground(d, 'email change mail', () => mailToken(d, 'email_change', stored, token, body.email));
  const notice = emailChangeNotice({ to: stored.email, username: stored.username, publicUrl: d.config.publicUrl, newEmail: body.email });
  inBackground(d, 'email change notice', () => sendMail(d, notice));
  return answer(body.email);
}

/**
 * Confirms an address with the token mailed to it: a signup's (or a resend's) marks the account's
 * address confirmed; an email change's makes its new address the account's, confirmed, and ends
 * the links mailed to the old one. The new address taken by another account meanwhile is 409
 * `EMAIL_ALREADY_EXISTS`, and the link stays unused.
 */
export async function verifyEmail(d: AccountsDeps, token: string) {
  const user = await withTransaction(d.pool, async (tx) => {
    const userId = await redeemUserToken(tx, token, 'verify');
    if (userId) return markEmailVerified(tx, userId);
    const change = await redeemEmailChangeToken(tx, token);
    if (!change) return undefined;
    const changed = await setConfirmedEmail(tx, change.userId, change.email);
    if (!changed.ok) throw takenError(changed.error); // rolls the redemption back with the rest
    await revokeUserTokens(tx, change.userId, 'verify');
    await revokeUserTokens(tx, change.userId, 'reset');
    return changed.value;
  });
  if (!user) throw invalidToken();
  return {
    user: { id: user.id, email: user.email, username: user.username, email_verified: user.emailVerified, created_at: user.createdAt.toISOString() },
  };
}

export function resendVerification(d: AccountsDeps, email: string): void {
  inBackground(d, 'verification resend', async () => {
    const user = await findUserByEmail(d.pool, email);
    if (user && !user.emailVerified) await mailToken(d, 'verify', user, await issueUserToken(d.pool, user.id, 'verify'));
  });
}

/** Lets background work finish (graceful shutdown). */
export async function drain(d: Pick<AccountsDeps, 'background'>): Promise<void> {
  while (d.background.size) await Promise.all(d.background);
}

export type Accounts = ReturnType<typeof createAccounts>;

/** The account use cases bound to their dependencies, made once per process. */
export function createAccounts(ctx: AppContext, sessions: Sessions, deps: AccountDeps) {
  const d: AccountsDeps = {
    pool: ctx.pool,
    config: ctx.config,
    log: ctx.log,
    mailer: deps.mailer,
    domainCheck: deps.domainCheck,
    sessions,
    passwords: deps.passwords ?? createPasswordHasher(ctx.config.bcryptCost),
    throttle: createLoginThrottle(ctx.makeLimiter),
    mailsPerRecipient: ctx.makeLimiter('mail-recipient', 5, 3600),
    background: new Set(),
  };
  return bind(d, {
    signup,
    login,
    refresh,
    logout,
    requestPasswordReset,
    updatePassword,
    changePassword,
    changeEmail,
    verifyEmail,
    resendVerification,
    drain,
  });
}
