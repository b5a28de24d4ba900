// Bot accounts (DESIGN 2.13): an account becomes a bot for good before it has played, and a bot
// plays through challenges only. The rule is checked where seeks and arena joins are decided
// (seekPoolActor.ts, tournaments.ts), whichever surface asks: /v1, a room or Lichess's API.
import type { AppContext } from '../context.ts';
import { lockPlayers } from '../db/games.ts';
import { findBotBlockers, findBotsSeenSince, findRatingStates, isBotAccount, markBot, type BotRecord, type RatingState } from '../db/players.ts';
import { withTransaction } from '../db/pool.ts';
import { AppError } from '../errors.ts';
import { bind } from './bind.ts';
import { ONLINE_WINDOW_MS } from './presence.ts';

/** What a bot is refused: a seek, quick pairing, an arena. */
export const botPlaysChallengesOnly = () =>
  new AppError('FORBIDDEN', 'A bot account plays through challenges only: no seeks, quick pairing or arenas');

export type BotsDeps = Pick<AppContext, 'pool' | 'clock'>;

/**
 * Makes the account a bot, for good; a bot already is left as it is. Refused (400) once it has
 * played a game, as on Lichess, and while it has an open seek or is in an arena that has not
 * finished (what a bot may not do would go on otherwise). The account's row and its player lock
 * are held: an arena join (which shares the row) or a seek (which takes the player lock) either
 * comes first and is seen here, or comes after and sees a bot.
 */
export async function upgrade(d: BotsDeps, userId: string): Promise<void> {
  await withTransaction(d.pool, async (tx) => {
    await lockPlayers(tx, [userId]);
    if (await isBotAccount(tx, userId, 'update')) return;
    const blockers = await findBotBlockers(tx, userId);
    if (blockers.played) throw new AppError('VALIDATION_ERROR', 'This account has played games: only an account that never played may become a bot');
    if (blockers.seeking) throw new AppError('VALIDATION_ERROR', 'This account has an open seek: cancel it before it becomes a bot');
    if (blockers.inArena) throw new AppError('VALIDATION_ERROR', 'This account is in an arena: withdraw before it becomes a bot');
    await markBot(tx, userId);
  });
}

export type OnlineBot = BotRecord & { ratings: RatingState[] };

/** Bots online now (presence: a live socket or stream, or a request within the online window), the most recently seen first. */
export async function online(d: BotsDeps, limit: number): Promise<OnlineBot[]> {
  const bots = await findBotsSeenSince(d.pool, new Date(d.clock.now() - ONLINE_WINDOW_MS), limit);
  if (bots.length === 0) return [];
  const ratings = await findRatingStates(d.pool, bots.map((b) => b.id));
  return bots.map((b) => ({ ...b, ratings: ratings.get(b.id) ?? [] }));
}

export type Bots = ReturnType<typeof createBots>;

export function createBots(ctx: Pick<AppContext, 'pool' | 'clock'>) {
  const d: BotsDeps = { pool: ctx.pool, clock: ctx.clock };
  return bind(d, { upgrade, online });
}
