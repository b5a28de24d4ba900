import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AvatarUrl, Country, FullName, normalizeUsername, Username } from '../auth/rules.ts';
import type { AppContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { DEFAULT_GLICKO } from '../domain/glicko2.ts';
import { PROVISIONAL_DEVIATION } from '../domain/puzzleAttempt.ts';
import { bind } from './bind.ts';
import { findPendingEmail } from '../db/userTokens.ts';
import {
  findProfile,
  findProfileByUsername,
  findTakenField,
  RATING_CATEGORIES,
  searchProfiles,
  updateProfile,
  type ProfileRecord,
  type RatingCategory,
} from '../db/users.ts';

/** A new player's rating in every category (Glicko-2 as on Lichess), until a rated game is played. */
export const DEFAULT_RATING = 1500;
/** DESIGN 2.2: `rating` of a user is the blitz rating. */
const HEADLINE_CATEGORY: RatingCategory = 'blitz';

/** Every rating a user has: the game categories and puzzles. */
const RATED_KINDS = [...RATING_CATEGORIES, 'puzzle'] as const;

const Ratings = z.object({
  bullet: z.number().int(),
  blitz: z.number().int(),
  rapid: z.number().int(),
  classical: z.number().int(),
  correspondence: z.number().int(),
});
export const PublicProfile = z.object({
  id: z.uuid(),
  username: z.string(),
  full_name: z.string().nullable(),
  avatar_url: z.url(),
  country: z.string().nullable(),
  rating: z.number().int(),
  ratings: Ratings,
  puzzle_rating: z.number().int().meta({ description: 'the Glicko-2 puzzle rating (1500 until the first rated attempt)' }),
  provisional: z.array(z.enum(RATED_KINDS)).meta({
    description:
      "the ratings not yet established: Glicko-2 deviation above 110, Lichess's line (all of a new player's). " +
      "They still move by large steps; Lichess shows them as '1500?'",
  }),
  stats: z.object({ games: z.number().int(), wins: z.number().int(), losses: z.number().int(), draws: z.number().int() }),
  bot: z.boolean().meta({ description: "a bot account (Lichess's title BOT, DESIGN 2.13): it plays through challenges only" }),
  title: z.literal('BOT').optional().meta({ description: "BOT for a bot account (the computer's included, DESIGN 2.14), as on a game's player objects; absent otherwise" }),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type PublicProfile = z.infer<typeof PublicProfile>;
/** What only the user sees of their account: their address (DESIGN 2.14: nothing of it is public). */
export const PrivateProfile = PublicProfile.extend({
  email: z.email(),
  email_verified: z.boolean(),
  pending_email: z.email().nullable().meta({ description: 'a new address asked for (POST /users/me/email) and not confirmed yet; null when none' }),
});
export type PrivateProfile = z.infer<typeof PrivateProfile>;

/** PATCH /users/me: absent fields stay; null restores the default (no name, default avatar, no country). */
export const ProfilePatchBody = z.object({
  username: Username.optional(),
  full_name: FullName.nullable().optional(),
  avatar_url: AvatarUrl.nullable().optional(),
  country: Country.nullable().optional(),
});
export type ProfilePatchBody = z.infer<typeof ProfilePatchBody>;

/** The avatar every user has until they set their own: a generated image served by this service. */
export const defaultAvatarUrl = (publicUrl: string, userId: string) => `${publicUrl}/v1/users/${userId}/avatar.svg`;

export const ratingsOf = (stored: ProfileRecord['ratings']): Record<RatingCategory, number> =>
  Object.fromEntries(RATING_CATEGORIES.map((c) => [c, Math.round(stored[c] ?? DEFAULT_RATING)])) as Record<RatingCategory, number>;

export const headlineRating = (stored: ProfileRecord['ratings']) => ratingsOf(stored)[HEADLINE_CATEGORY];

export const usernameTaken = () => new AppError('USERNAME_ALREADY_EXISTS', 'This username is already taken');

/** What the user use cases work with. */
export type UsersDeps = Pick<AppContext, 'pool' | 'config'>;

function toPublic(d: UsersDeps, p: ProfileRecord): PublicProfile {
  return {
    id: p.id,
    username: p.username,
    full_name: p.fullName,
    avatar_url: p.avatarUrl ?? defaultAvatarUrl(d.config.publicUrl, p.id),
    country: p.country,
    rating: headlineRating(p.ratings),
    ratings: ratingsOf(p.ratings),
    puzzle_rating: Math.round(p.ratings.puzzle ?? DEFAULT_RATING),
    provisional: RATED_KINDS.filter((c) => (p.deviations[c] ?? DEFAULT_GLICKO.deviation) > PROVISIONAL_DEVIATION),
    stats: { games: p.gamesPlayed, wins: p.wins, losses: p.losses, draws: p.draws },
    bot: p.bot,
    ...(p.bot ? { title: 'BOT' as const } : {}),
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

async function toPrivate(d: UsersDeps, p: ProfileRecord): Promise<PrivateProfile> {
  const { id, username, ...rest } = toPublic(d, p);
  const pending = (await findPendingEmail(d.pool, p.id)) ?? null;
  return { id, email: p.email, username, email_verified: p.emailVerified, pending_email: pending, ...rest };
}

async function getProfile(d: UsersDeps, id: string): Promise<ProfileRecord> {
  const profile = await findProfile(d.pool, id);
  if (!profile) throw new AppError('USER_NOT_FOUND', 'User not found');
  return profile;
}

export const getMe = async (d: UsersDeps, userId: string) => toPrivate(d, await getProfile(d, userId));

export const getPublic = async (d: UsersDeps, id: string) => toPublic(d, await getProfile(d, id));

export async function getPublicByUsername(d: UsersDeps, username: string): Promise<PublicProfile> {
  const profile = await findProfileByUsername(d.pool, normalizeUsername(username));
  if (!profile) throw new AppError('USER_NOT_FOUND', 'User not found');
  return toPublic(d, profile);
}

export async function updateMe(d: UsersDeps, userId: string, patch: ProfilePatchBody): Promise<PrivateProfile> {
  if (patch.username !== undefined && (await findTakenField(d.pool, { username: patch.username, exceptId: userId }))) {
    throw usernameTaken();
  }
  const result = await updateProfile(d.pool, userId, {
    username: patch.username,
    // An empty name is no name.
    fullName: patch.full_name === undefined ? undefined : patch.full_name || null,
    avatarUrl: patch.avatar_url,
    country: patch.country,
  });
  if (!result.ok) throw usernameTaken(); // lost a race with another rename
  return toPrivate(d, await getProfile(d, userId));
}

export async function search(d: UsersDeps, q: string, page: { page: number; limit: number }) {
  const pattern = `${escapeLike(q.toLowerCase())}%`;
  const { rows, total } = await searchProfiles(d.pool, { pattern, limit: page.limit, offset: (page.page - 1) * page.limit });
  return { users: rows.map((p) => toPublic(d, p)), total };
}

export async function avatarSvg(d: UsersDeps, id: string): Promise<string> {
  return renderAvatar(id, (await getProfile(d, id)).username);
}

export type Users = ReturnType<typeof createUsers>;

export function createUsers(d: UsersDeps) {
  return bind(d, { getMe, getPublic, getPublicByUsername, updateMe, search, avatarSvg });
}

/** `%`, `_` and the escape character itself match literally in a LIKE pattern with ESCAPE '\'. */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/** Initials on a colour derived from the id: stable for a user, different between users. */
export function renderAvatar(id: string, username: string): string {
  const hue = createHash('sha256').update(id).digest().readUInt16BE(0) % 360;
  // Usernames are [A-Za-z0-9_]: the initials need no escaping.
  const initials = (username.replace(/_/g, '').slice(0, 2) || username.slice(0, 1)).toUpperCase();
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128" role="img" aria-label="${initials}">` +
    `<rect width="128" height="128" fill="hsl(${hue},55%,42%)"/>` +
    `<text x="64" y="64" dy=".35em" text-anchor="middle" font-family="Arial,Helvetica,sans-serif" font-size="52" fill="#fff">${initials}</text>` +
    `</svg>`
  );
}
