import type { Queryable } from '../db/pool.ts';
import {
  consumeEmailChangeToken,
  consumeUserToken,
  findLiveUserToken,
  insertUserToken,
  revokeUserTokens,
  type UserTokenPurpose,
} from '../db/userTokens.ts';
import { emailChangeMail, passwordResetMail, verificationMail } from './mails.ts';
import type { Mail } from './mailer.ts';
import { hashToken, randomToken } from './tokens.ts';

/** DESIGN 2.2: a reset link works for one hour, a verification link (a new address's too) for a day. */
export const USER_TOKEN_TTL_SECONDS: Record<UserTokenPurpose, number> = { reset: 3600, verify: 24 * 3600, email_change: 24 * 3600 };

/**
 * Only the newest reset link works: an older one lying in a mailbox (or a mail archive someone
 * else can read) stops working as soon as another is issued or one is used. Only the newest
 * email change waits: a newer one replaces it, and the older link confirms nothing.
 */
const ONE_LIVE_TOKEN: Record<UserTokenPurpose, boolean> = { reset: true, verify: false, email_change: true };

/**
 * Creates a one-time token for a user and returns it in clear; only its hash is stored. Run it in
 * a transaction when `purpose` keeps one live token (the older ones are revoked first).
 * `email`: the new address an `email_change` token confirms.
 */
export async function issueUserToken(db: Queryable, userId: string, purpose: UserTokenPurpose, email?: string): Promise<string> {
  const token = randomToken();
  if (ONE_LIVE_TOKEN[purpose]) await revokeUserTokens(db, userId, purpose);
  await insertUserToken(db, { tokenHash: hashToken(token), userId, purpose, ttlSeconds: USER_TOKEN_TTL_SECONDS[purpose], email });
  return token;
}

/** Uses up an email change's token; its user and new address, or undefined when unknown, used, replaced or expired. */
export const redeemEmailChangeToken = (db: Queryable, token: string) => consumeEmailChangeToken(db, hashToken(token));

/**
 * Uses up a token (and, for a reset, every other live one of the user); the user it was issued
 * to, or undefined when it is unknown, used or expired.
 */
export async function redeemUserToken(db: Queryable, token: string, purpose: UserTokenPurpose): Promise<string | undefined> {
  const userId = await consumeUserToken(db, hashToken(token), purpose);
  if (userId && ONE_LIVE_TOKEN[purpose]) await revokeUserTokens(db, userId, purpose);
  return userId;
}

/** Whether the token would redeem now: a cheap check before costly work (hashing a password). */
export const isLiveUserToken = async (db: Queryable, token: string, purpose: UserTokenPurpose): Promise<boolean> =>
  (await findLiveUserToken(db, hashToken(token), purpose)) !== undefined;

export function userTokenMail(
  purpose: UserTokenPurpose,
  o: { to: string; username: string; publicUrl: string; token: string },
): Mail {
  const validHours = USER_TOKEN_TTL_SECONDS[purpose] / 3600;
  if (purpose === 'reset') return passwordResetMail({ ...o, validHours });
  return purpose === 'email_change' ? emailChangeMail({ ...o, validHours }) : verificationMail({ ...o, validHours });
}
