import { z } from 'zod';
import { isPersonalToken, newPersonalToken } from '../auth/personalTokens.ts';
import { plainText } from '../auth/rules.ts';
import { requireSession, SCOPES, type AuthUser } from '../auth/scopes.ts';
import { hashToken } from '../auth/tokens.ts';
import type { AppContext } from '../context.ts';
import { withTransaction } from '../db/pool.ts';
import { deletePersonalToken, findPersonalTokensByHashes, insertPersonalToken, listPersonalTokens, type PersonalTokenRecord } from '../db/personalTokens.ts';
import { parseId } from '../domain/ids.ts';
import { AppError, validationError } from '../errors.ts';
import { bind } from './bind.ts';

/** DESIGN 2.12: at most this many personal tokens per user (expired ones count until deleted). */
export const MAX_PERSONAL_TOKENS = 50;

export const CreatePersonalTokenBody = z.object({
  description: plainText()
    .transform((s) => s.trim())
    .pipe(z.string().min(1, 'must be 1 to 100 characters').max(100, 'must be 1 to 100 characters'))
    .meta({ description: 'what the token is for, e.g. "my bot"' }),
  scopes: z
    .array(z.enum(SCOPES, { error: `must be one of ${SCOPES.join(', ')}` }), { error: 'must be an array of scopes' })
    .min(1, 'must name at least one scope')
    .max(SCOPES.length * 2, 'too many scopes'),
  expires_at: z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time' })
    .nullable()
    .optional()
    .meta({ description: 'when the token stops working (must be in the future); none: it works until deleted' }),
});
export type CreatePersonalTokenBody = z.infer<typeof CreatePersonalTokenBody>;

export const PersonalTokenView = z.object({
  id: z.uuid(),
  description: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  created_at: z.iso.datetime(),
  expires_at: z.iso.datetime().nullable(),
  last_used_at: z.iso.datetime().nullable().meta({ description: 'the last use, to the minute' }),
});
export type PersonalTokenView = z.infer<typeof PersonalTokenView>;
export const CreatedPersonalToken = PersonalTokenView.extend({
  token: z.string().meta({ description: '`cst_` + 43 base62 characters; shown only in this answer' }),
});

const formatToken = (t: PersonalTokenRecord): PersonalTokenView => ({
  id: t.id,
  description: t.description,
  scopes: t.scopes as PersonalTokenView['scopes'],
  created_at: t.createdAt.toISOString(),
  expires_at: t.expiresAt?.toISOString() ?? null,
  last_used_at: t.lastUsedAt?.toISOString() ?? null,
});

/**
 * What the personal token use cases work with. `ended` tells every node a deleted token ended
 * (the session revocation channel: a token's id is what it names).
 */
export type PersonalTokensDeps = Pick<AppContext, 'pool' | 'clock'> & { ended: (userId: string, tokenId: string) => Promise<void> };

/** A new token, in clear this once; only its hash is stored. Needs a session, not a personal token. */
export async function create(d: PersonalTokensDeps, user: AuthUser, body: CreatePersonalTokenBody): Promise<PersonalTokenView & { token: string }> {
  requireSession(user);
  const now = d.clock.now();
  const expiresAt = body.expires_at ? new Date(body.expires_at) : null;
  if (expiresAt && expiresAt.getTime() <= now) throw validationError('expires_at', 'must be in the future');
  if (expiresAt && expiresAt.getUTCFullYear() > 9999) throw validationError('expires_at', 'must be before the year 10000');
  const token = newPersonalToken();
  const scopes = SCOPES.filter((s) => body.scopes.includes(s));
  const created = await withTransaction(d.pool, (tx) =>
    insertPersonalToken(tx, {
      userId: user.id,
      tokenHash: hashToken(token),
      description: body.description,
      scopes,
      createdAt: new Date(now),
      expiresAt,
      max: MAX_PERSONAL_TOKENS,
    }),
  );
  if (!created) throw new AppError('TOKEN_LIMIT', `At most ${MAX_PERSONAL_TOKENS} personal access tokens per user`);
  const { id, ...view } = formatToken(created);
  // `token` second, so the answer reads {id, token, …} as DESIGN 2.12 lists it.
  return { id, token, ...view };
}

export async function list(d: PersonalTokensDeps, user: AuthUser, page: { page: number; limit: number }): Promise<{ tokens: PersonalTokenView[]; total: number }> {
  requireSession(user);
  const { rows, total } = await listPersonalTokens(d.pool, user.id, page.limit, (page.page - 1) * page.limit);
  return { tokens: rows.map(formatToken), total };
}

/** Deletes one of the caller's tokens; it stops working on every node before this resolves. */
export async function remove(d: PersonalTokensDeps, user: AuthUser, requestedId: string): Promise<void> {
  requireSession(user);
  const id = parseId(requestedId);
  if (!id || !(await deletePersonalToken(d.pool, user.id, id))) throw new AppError('TOKEN_NOT_FOUND', 'Token not found');
  await d.ended(user.id, id);
}

/** A live personal token as a token test describes it: whose it is, what it may do, until when. */
export type TokenDescription = { userId: string; username: string; scopes: string[]; expiresAt: Date | null };

/**
 * Each token as it stands now (Lichess's token test, DESIGN 2.13): its description when it is a
 * live personal token, else null (unknown, deleted, expired, or not a personal token). Reads only:
 * a test is no use of the token.
 */
export async function describe(d: PersonalTokensDeps, tokens: string[]): Promise<Map<string, TokenDescription | null>> {
  const hashes = new Map(tokens.filter(isPersonalToken).map((t) => [t, hashToken(t)]));
  const found = hashes.size > 0 ? await findPersonalTokensByHashes(d.pool, [...new Set(hashes.values())]) : new Map();
  const now = d.clock.now();
  return new Map(
    tokens.map((token) => {
      const t = found.get(hashes.get(token) ?? '');
      const live = t && (!t.expiresAt || t.expiresAt.getTime() > now);
      return [token, live ? { userId: t.userId, username: t.username, scopes: t.scopes, expiresAt: t.expiresAt } : null];
    }),
  );
}

export type PersonalTokens = ReturnType<typeof createPersonalTokens>;

/** Making, listing and deleting personal access tokens (DESIGN 2.12). */
export function createPersonalTokens(ctx: Pick<AppContext, 'pool' | 'clock'>, o: Pick<PersonalTokensDeps, 'ended'>) {
  const d: PersonalTokensDeps = { pool: ctx.pool, clock: ctx.clock, ended: o.ended };
  return bind(d, { create, list, remove, describe });
}
