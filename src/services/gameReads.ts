// The game reads REST and the streams serve: detail, PGN, lists. A hosted game's detail comes
// from its actor in memory; any other from PostgreSQL.
import { findAnalysis } from '../db/analysis.ts';
import { findCategoryRatings, findGameDetail } from '../db/games.ts';
import { loadTakebacks, type StoredTakeback } from '../db/liveGames.ts';
import { listGames as listGameRows, type GameListFilter, type GameListOrder } from '../db/gameLists.ts';
import { findSeekRedirect } from '../db/seeks.ts';
import type { GameResult } from '../domain/game.ts';
import type { GameAnalysis } from '../domain/gameAnalysis.ts';
import { loadOpeningBook } from '../domain/openings.ts';
import { parseId } from '../domain/ids.ts';
import type { TimeControl } from '../domain/timeControl.ts';
import { NO_VIEWER, notFound, visibleTo, type GamesDeps } from './gameAccess.ts';
import { formatGameDetail, formatGameListItem, formatGamePgn, pgnLine, type DetailInput, type GameDetail, type GameListItem } from './gameViews.ts';

export type ListGamesInput = {
  /** `pending`: the caller's own pending games (challenges sent and received, open seeks). */
  status?: GameListFilter['status'];
  player_id?: string;
  time_control?: TimeControl;
  result?: GameResult;
  tournament_id?: string;
  search?: string;
  /** 'true': the caller's active games where it is their turn; 'false': where it is not. */
  my_turn?: 'true' | 'false';
  page: number;
  limit: number;
  /** `field` (ordered by `order`) or `-field` (descending whatever `order` says). */
  sort?: 'created_at' | 'updated_at' | '-created_at' | '-updated_at';
  order?: 'asc' | 'desc';
};

/** What a stream starts from: the game's detail and the number of its last event (`v`). */
export type GameSnapshot = { game: GameDetail; v: number };

const env = (d: GamesDeps, now = d.clock.now()) => ({ publicUrl: d.config.publicUrl, now });

/** The game's detail as of `now`: from its actor when this process hosts it, else from PostgreSQL. */
async function loadDetail(d: GamesDeps, userId: string, requestedId: string, now: number): Promise<DetailInput> {
  const id = parseId(requestedId);
  if (!id) throw notFound();
  // The actor is the game's only writer and holds all of it: a read costs no round trip.
  const hosted = d.liveGames?.find(id)?.detail(now);
  if (hosted) {
    visibleTo(hosted.game, userId);
    return hosted;
  }
  let found = await findGameDetail(d.pool, id);
  if (!found) {
    // A seek paired with an older one lives on in that one's game; its owner is led there.
    const redirect = await findSeekRedirect(d.pool, id);
    if (redirect?.userId === userId) found = await findGameDetail(d.pool, redirect.gameId);
  }
  const game = visibleTo(found?.game, userId);
  const { moves, drawOffer, rematch } = found!;
  const seated = [game.whiteId, game.blackId].filter((x): x is string => x !== null);
  const ratings = game.status === 'pending' ? await findCategoryRatings(d.pool, seated, game.timeControl) : undefined;
  return { game, moves, drawOffer, rematch, ratings };
}

export async function getGame(d: GamesDeps, userId: string, id: string): Promise<GameDetail> {
  const now = d.clock.now();
  return formatGameDetail(await loadDetail(d, userId, id, now), env(d, now));
}

/** What anyone may see: a started or ended game; a pending one is 404 (it exists only for its players). */
export const getPublicGame = (d: GamesDeps, id: string) => getGame(d, NO_VIEWER, id);

/** The game as a stream viewer (anyone, or a player with a token) sees it, with its event number. */
export async function snapshot(d: GamesDeps, viewerId: string | undefined, id: string): Promise<GameSnapshot> {
  const now = d.clock.now();
  const detail = await loadDetail(d, viewerId ?? NO_VIEWER, id, now);
  return { game: formatGameDetail(detail, env(d, now)), v: detail.game.eventSeq };
}

export async function listGames(d: GamesDeps, userId: string, q: ListGamesInput): Promise<{ games: GameListItem[]; total: number }> {
  const descending = q.sort?.startsWith('-');
  const field = (q.sort?.replace(/^-/, '') ?? 'created_at') as GameListOrder['field'];
  const { games, total } = await listGameRows(
    d.pool,
    {
      viewerId: userId,
      status: q.status,
      playerId: parseId(q.player_id),
      timeControl: q.time_control,
      result: q.result,
      tournamentId: parseId(q.tournament_id),
      search: q.search || undefined,
      myTurn: q.my_turn === undefined ? undefined : q.my_turn === 'true',
    },
    { field, direction: descending ? 'desc' : (q.order ?? 'desc') },
    { limit: q.limit, offset: (q.page - 1) * q.limit },
  );
  // Pending games show the players' current ratings (as their detail does): one lookup per
  // category on the page, which is one or two for a player's handful of pending games.
  const pending = games.filter((g) => g.status === 'pending');
  const categories = [...new Set(pending.map((g) => g.timeControl))];
  const ratings = new Map(
    await Promise.all(
      categories.map(async (category) => {
        const seated = pending
          .filter((g) => g.timeControl === category)
          .flatMap((g) => [g.whiteId, g.blackId])
          .filter((id): id is string => id !== null);
        return [category, await findCategoryRatings(d.pool, [...new Set(seated)], category)] as const;
      }),
    ),
  );
  const e = env(d);
  return { games: games.map((g) => formatGameListItem(g, e, userId, ratings.get(g.timeControl))), total };
}

/** The options of a PGN export (DESIGN 2.12), the same here as in the export of a user's games. */
export type PgnOptions = { clocks: boolean; evals: boolean; opening: boolean };
export const DEFAULT_PGN_OPTIONS: PgnOptions = { clocks: true, evals: false, opening: true };

export async function getPgn(d: GamesDeps, userId: string, id: string, options: PgnOptions = DEFAULT_PGN_OPTIONS): Promise<string> {
  const detail = await loadDetail(d, userId, id, d.clock.now());
  const analysis = options.evals ? await findAnalysis(d.pool, detail.game.id) : undefined;
  const line = pgnLine(detail.moves);
  return formatGamePgn({ ...detail, ...line }, d.config.publicUrl, {
    clocks: options.clocks,
    analysis: analysis?.status === 'done' ? (analysis.result as GameAnalysis) : null,
    opening: options.opening ? loadOpeningBook().classifySans(line.sans) : null,
  });
}

/**
 * The game's pending takeback proposal, if any: what its detail does not show (a stream that
 * starts while one is pending, a client's "yes" or "no" that names none, as Lichess's do).
 * Read from its rows, which the game writes before it tells anyone: never behind its events.
 */
export async function pendingTakeback(d: Pick<GamesDeps, 'pool'>, gameId: string): Promise<StoredTakeback | undefined> {
  const id = parseId(gameId);
  return id ? (await loadTakebacks(d.pool, id)).find((t) => t.status === 'pending') : undefined;
}
