import type { Queryable } from '../db/pool.ts';
import { consumeUserToken, insertUserToken, type UserTokenPurpose } from '../db/userTokens.ts';
import { passwordResetMail, verificationMail } from './mails.ts';
import type { Mail } from './mailer.ts';
import { hashToken, randomToken } from './tokens.ts';

/** DESIGN 2.2: a reset link works for one hour, a verification link for a day. */
export const USER_TOKEN_TTL_SECONDS: Record<UserTokenPurpose, number> = { reset: 3600, verify: 24 * 3600 };

/** Creates a one-time token for a user and returns it in clear; only its hash is stored. */
export async function issueUserToken(db: Queryable, userId: string, purpose: UserTokenPurpose): Promise<string> {
  const token = randomToken();
  await insertUserToken(db, { tokenHash: hashToken(token), userId, purpose, ttlSeconds: USER_TOKEN_TTL_SECONDS[purpose] });
  return token;
}

/** Uses up a token; the user it was issued to, or undefined when it is unknown, used or expired. */
export const redeemUserToken = (db: Queryable, token: string, purpose: UserTokenPurpose) =>
  consumeUserToken(db, hashToken(token), purpose);

export function userTokenMail(
  purpose: UserTokenPurpose,
  o: { to: string; username: string; publicUrl: string; token: string },
): Mail {
  const validHours = USER_TOKEN_TTL_SECONDS[purpose] / 3600;
  return purpose === 'reset' ? passwordResetMail({ ...o, validHours }) : verificationMail({ ...o, validHours });
}
