// The games a user's Lichess event stream and challenge list tell of (DESIGN 2.13), as plain
// records for src/lichess to spell: each game with its players (the active ones folded with their
// moves past the snapshot, as every read of an active game is), its last move, the players'
// ratings as the game shows them and which of them are bot accounts.
import type { AppContext } from '../context.ts';
import { listGames } from '../db/gameLists.ts';
import { findCategoryRatings, findGameDetail, type GameWithPlayers } from '../db/games.ts';
import { findBots, findLastMoves } from '../db/userEventGames.ts';
import type { Color } from '../domain/game.ts';
import { DEFAULT_GLICKO } from '../domain/glicko2.ts';
import { parseId } from '../domain/ids.ts';
import { notFound, visibleTo } from './gameAccess.ts';

export type EventGame = {
  game: GameWithPlayers;
  /** The last move (UCI), null before the first. */
  lastMove: string | null;
  /** The players' ratings as the game shows them: from its start, or their current ones while it is pending. */
  ratings: Record<Color, number>;
  /** The bot accounts among its players (Lichess's title BOT). */
  bots: ReadonlySet<string>;
};

export type EventGamesDeps = Pick<AppContext, 'pool'>;

/** At most this many of a user's games in progress are told when their event stream opens. */
export const MAX_PLAYING = 500;
const PAGE = 100;

const seated = (g: GameWithPlayers) => [g.whiteId, g.blackId].filter((id): id is string => id !== null);

/** Ratings as the views show them: the category's current ones while pending, else those of the start. */
async function ratingsOf(d: EventGamesDeps, g: GameWithPlayers): Promise<Record<Color, number>> {
  const current = g.status === 'pending' ? await findCategoryRatings(d.pool, seated(g), g.timeControl) : undefined;
  const of = (id: string | null, stored: number | null) => (current && id ? current.get(id) : undefined) ?? stored ?? DEFAULT_GLICKO.rating;
  return { white: of(g.whiteId, g.whiteRating), black: of(g.blackId, g.blackRating) };
}

/** The bot accounts among `userIds` (Lichess's title BOT): one read for the event stream and the game stream. */
export function findBotAccounts(d: EventGamesDeps, userIds: readonly string[]): Promise<Set<string>> {
  return findBots(d.pool, userIds);
}

/** The game as `userId` may see it (a pending one only its players); GAME_NOT_FOUND otherwise. */
export async function findEventGame(d: EventGamesDeps, userId: string, requestedId: string): Promise<EventGame> {
  const id = parseId(requestedId);
  if (!id) throw notFound();
  const found = await findGameDetail(d.pool, id);
  const game = visibleTo(found?.game, userId);
  const [ratings, bots] = await Promise.all([ratingsOf(d, game), findBotAccounts(d, seated(game))]);
  return { game, lastMove: found!.moves.at(-1)?.uci ?? null, ratings, bots };
}

/** The user's games in progress, oldest first (at most MAX_PLAYING): what an event stream tells when it opens. */
export async function listPlaying(d: EventGamesDeps, userId: string): Promise<EventGame[]> {
  const games: GameWithPlayers[] = [];
  for (let offset = 0; offset < MAX_PLAYING; offset += PAGE) {
    const page = await listGames(d.pool, { viewerId: userId, status: 'active', playerId: userId }, OLDEST_FIRST, { limit: PAGE, offset });
    games.push(...page.games);
    if (page.games.length < PAGE) break;
  }
  return told(d, games);
}

/** The user's pending challenges, sent and received, oldest first (not their seeks). */
export async function listChallenges(d: EventGamesDeps, userId: string): Promise<EventGame[]> {
  const { games } = await listGames(d.pool, { viewerId: userId, status: 'pending' }, OLDEST_FIRST, { limit: PAGE, offset: 0 });
  return told(d, games.filter((g) => g.kind === 'challenge'));
}

const OLDEST_FIRST = { field: 'created_at', direction: 'asc' } as const;

async function told(d: EventGamesDeps, games: GameWithPlayers[]): Promise<EventGame[]> {
  const [lastMoves, bots] = await Promise.all([
    findLastMoves(d.pool, games.filter((g) => g.moveCount > 0).map((g) => g.id)),
    findBotAccounts(d, [...new Set(games.flatMap(seated))]),
  ]);
  return Promise.all(games.map(async (game) => ({ game, lastMove: lastMoves.get(game.id) ?? null, ratings: await ratingsOf(d, game), bots })));
}
