// DESIGN 2.14, watching: the live games by average rating (GET /games/live) and the TV, whose
// featured game is the live game of highest average rating, kept until it ends, then the next.
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { findFeatured, findLiveGame, listLiveGames, replaceFeatured, type LiveGameRecord, type LivePlayerRecord } from '../db/watching.ts';
import { COLORS, type Color } from '../domain/game.ts';
import type { NumberedEvent } from '../domain/liveGameViews.ts';
import { LIVE_TIME_CONTROLS } from '../domain/timeControl.ts';

export const LIVE_GAMES_DEFAULT = 20;
export const LIVE_GAMES_MAX = 100;
/** The TV channel of the highest average rating (one row of tv_channels, migration 031). */
const BEST = 'best';

export const LivePlayerView = z.object({
  id: z.uuid(),
  username: z.string(),
  rating: z.number().int().meta({ description: "rating in the game's category when it started" }),
  title: z.literal('BOT').optional().meta({ description: 'BOT for a bot account, absent otherwise' }),
});
export type LivePlayerView = z.infer<typeof LivePlayerView>;

export const LiveGameView = z.object({
  id: z.uuid(),
  players: z.object({ white: LivePlayerView, black: LivePlayerView }),
  average_rating: z.number().int(),
  time_control: z.enum(LIVE_TIME_CONTROLS),
  initial_time: z.number().int(),
  increment: z.number().int(),
  rated: z.boolean(),
  fen: z.string().meta({ description: 'the position now' }),
  last_move: z.string().nullable().meta({ description: 'the last move in UCI (e2e4, e7e8q); null before the first' }),
  move_count: z.number().int().meta({ description: 'half-moves played' }),
  started_at: z.string().nullable().meta({ format: 'date-time' }),
});
export type LiveGameView = z.infer<typeof LiveGameView>;

export const FeaturedGameView = LiveGameView.extend({
  orientation: z.enum(COLORS).meta({ description: "the side of the higher-rated player (White's on a tie): the board is shown from there" }),
});
export type FeaturedGameView = z.infer<typeof FeaturedGameView>;

export const TvView = z.object({
  game: z.union([FeaturedGameView, z.null()]).meta({ description: 'null while no game is live' }),
});
export type TvView = z.infer<typeof TvView>;

const formatPlayer = (p: LivePlayerRecord): LivePlayerView => ({ id: p.id, username: p.username, rating: p.rating, ...(p.bot ? { title: 'BOT' as const } : {}) });

export function formatLiveGame(g: LiveGameRecord): LiveGameView {
  return {
    id: g.id,
    players: { white: formatPlayer(g.white), black: formatPlayer(g.black) },
    average_rating: Math.round((g.white.rating + g.black.rating) / 2),
    time_control: g.timeControl as LiveGameView['time_control'],
    initial_time: g.initialTime,
    increment: g.increment,
    rated: g.rated,
    fen: g.fen,
    last_move: g.lastMove,
    move_count: g.moveCount,
    started_at: g.startedAt ? g.startedAt.toISOString() : null,
  };
}

/** Lichess shows its TV from the side of the stronger player. */
export const orientationOf = (g: LiveGameView): Color => (g.players.black.rating > g.players.white.rating ? 'black' : 'white');

export const formatFeatured = (g: LiveGameView): FeaturedGameView => ({ ...g, orientation: orientationOf(g) });

/**
 * What the TV sends of a game event of the featured game: its position after a move (or a
 * takeback), with the clocks in whole seconds as Lichess's `fen` line has them; nothing else.
 */
export function tvPosition(event: NumberedEvent): { fen: string; last_move: string | null; wc: number; bc: number } | undefined {
  if (event.type === 'move') {
    const { from, to, promotion } = event.move;
    return { fen: event.move.fen, last_move: `${from}${to}${promotion ?? ''}`, ...wholeSeconds(event.times) };
  }
  if (event.type === 'takeback') return { fen: event.fen, last_move: null, ...wholeSeconds(event.times) };
  return undefined;
}

const wholeSeconds = (t: { white: number; black: number }) => ({ wc: Math.round(t.white), bc: Math.round(t.black) });

export type Watching = {
  liveGames: (limit: number) => Promise<LiveGameView[]>;
  /**
   * The featured game, the same on every node: the one tv_channels holds while it is live, else
   * the live game of highest average rating, put there only if no other node put one first (then
   * that one is the answer). Null while no game is live.
   */
  featured: () => Promise<FeaturedGameView | null>;
};

export function createWatching(ctx: Pick<AppContext, 'pool'>): Watching {
  const { pool } = ctx;
  return {
    liveGames: async (limit) => (await listLiveGames(pool, limit)).map(formatLiveGame),
    async featured() {
      // A compare and set lost to another node is read again: a few rounds at most, as each one
      // lost means another node decided.
      for (let round = 0; round < 5; round++) {
        const held = await findFeatured(pool, BEST);
        if (held.gameId && held.live) {
          const game = await findLiveGame(pool, held.gameId);
          if (game) return formatFeatured(formatLiveGame(game));
          continue; // it ended in between
        }
        const [best] = await listLiveGames(pool, 1);
        if (!best && !held.gameId) return null; // nothing was live, nothing is: nothing to write
        if (await replaceFeatured(pool, BEST, held.gameId, best?.id ?? null)) return best ? formatFeatured(formatLiveGame(best)) : null;
      }
      throw new Error('the featured game kept changing');
    },
  };
}
