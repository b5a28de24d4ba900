// What is known of a player beyond the profile of /v1: each rating's Glicko-2 state and progress,
// when they were last seen, whether they are online, the games they play now. Lichess's account,
// user and status reads (src/lichess) are built from it.
import { normalizeUsername } from '../auth/rules.ts';
import type { AppContext } from '../context.ts';
import { findActiveGamesOf, findPlayerActivity, findPlayerStatuses, findRatingStates, type PlayerActivity, type PlayerStatusRecord, type PlayingGame, type RatingState } from '../db/players.ts';
import { findProfile, findProfileByUsername, type ProfileRecord } from '../db/users.ts';
import { AppError } from '../errors.ts';
import { bind } from './bind.ts';
import type { Presence } from './presence.ts';

export type { PlayingGame, RatingState } from '../db/players.ts';

/** A player as a full read shows them: the profile, the rating states, what they do now. */
export type PlayerCard = { profile: ProfileRecord; ratings: RatingState[]; activity: PlayerActivity; online: boolean };

export type PlayerStatus = PlayerStatusRecord & { online: boolean };

/** Active games read at most: a player has one live game and their correspondence games. */
export const MAX_PLAYING = 500;

export type PlayersDeps = Pick<AppContext, 'pool'> & { isOnline: Presence['isOnline'] };

async function card(d: PlayersDeps, profile: ProfileRecord | undefined): Promise<PlayerCard> {
  if (!profile) throw new AppError('USER_NOT_FOUND', 'User not found');
  const [ratings, activity] = await Promise.all([findRatingStates(d.pool, [profile.id]), findPlayerActivity(d.pool, profile.id)]);
  return { profile, ratings: ratings.get(profile.id) ?? [], activity, online: d.isOnline(activity.lastSeenAt) };
}

export const getCard = async (d: PlayersDeps, userId: string) => card(d, await findProfile(d.pool, userId));

export const getCardByUsername = async (d: PlayersDeps, username: string) => card(d, await findProfileByUsername(d.pool, normalizeUsername(username)));

/** The users of these usernames that exist, in the order asked, each once. */
export async function statuses(d: PlayersDeps, usernames: string[]): Promise<PlayerStatus[]> {
  const keys = [...new Set(usernames.map(normalizeUsername))];
  const found = new Map((await findPlayerStatuses(d.pool, keys)).map((s) => [s.username.toLowerCase(), s]));
  return keys.flatMap((k) => {
    const s = found.get(k);
    return s ? [{ ...s, online: d.isOnline(s.lastSeenAt) }] : [];
  });
}

/** The user's games in progress, correspondence ones included. */
export const playing = (d: PlayersDeps, userId: string): Promise<PlayingGame[]> => findActiveGamesOf(d.pool, userId, MAX_PLAYING);

export type Players = ReturnType<typeof createPlayers>;

export function createPlayers(ctx: Pick<AppContext, 'pool'>, presence: Pick<Presence, 'isOnline'>) {
  const d: PlayersDeps = { pool: ctx.pool, isOnline: presence.isOnline };
  return bind(d, { getCard, getCardByUsername, statuses, playing });
}
