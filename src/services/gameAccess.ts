// What every game use case shares: its dependencies, who may see a game, and who sits in it.
import type { AppContext } from '../context.ts';
import { findGame, type GameRecord } from '../db/games.ts';
import { parseId } from '../domain/ids.ts';
import { AppError } from '../errors.ts';
import type { LiveGameHost } from './liveGameHost.ts';
import { userNotifier, type UserNotifier } from './userEvents.ts';

/** The game use cases' dependencies. `liveGames`: this process's live games, read from memory when given. */
export type GamesDeps = Pick<AppContext, 'pool' | 'config' | 'log' | 'clock' | 'events'> & { liveGames?: LiveGameHost };

export const notFound = () => new AppError('GAME_NOT_FOUND', 'Game not found');
/** A viewer who is nobody's opponent (the nil uuid is never a user's id). */
export const NO_VIEWER = '00000000-0000-0000-0000-000000000000';

type Seating = Pick<GameRecord, 'whiteId' | 'blackId' | 'createdBy'>;
export const isPlayer = (g: Seating, userId: string) => g.whiteId === userId || g.blackId === userId;
const isParticipant = (g: Seating, userId: string) => isPlayer(g, userId) || g.createdBy === userId;
/** The challenged player: seated in a challenge they did not create. */
export const isChallenged = (g: GameRecord, userId: string) => g.kind === 'challenge' && isPlayer(g, userId) && g.createdBy !== userId;
/** Pending and not past its deadline (the sweeper abandons it within a second of that). */
export const isOpen = (g: GameRecord, now: number) => g.status === 'pending' && (!g.expiresAt || g.expiresAt.getTime() > now);

/** A pending game exists only for its participants (DESIGN 2.8); anyone else is told 404. */
export function visibleTo<G extends Pick<GameRecord, 'status' | 'whiteId' | 'blackId' | 'createdBy'>>(g: G | undefined, userId: string): G {
  if (!g || (g.status === 'pending' && !isParticipant(g, userId))) throw notFound();
  return g;
}

/** The game's row, as `userId` may see it; GAME_NOT_FOUND otherwise. */
export async function findVisible(d: GamesDeps, userId: string, requestedId: string): Promise<GameRecord> {
  const id = parseId(requestedId);
  if (!id) throw notFound();
  return visibleTo(await findGame(d.pool, id), userId);
}

/** Sends `event` on the user's own channel. */
export function notify(d: GamesDeps, userId: string, event: Parameters<UserNotifier>[1]): void {
  userNotifier(d)(userId, event);
}

/** Tells both players' lobbies that their list of pending challenges changed. */
export function challengesChanged(d: GamesDeps, ...userIds: (string | null)[]): void {
  for (const id of new Set(userIds)) if (id) notify(d, id, { type: 'challenges_changed' });
}
