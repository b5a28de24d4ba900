import { z } from 'zod';
import type { Services } from '../../services/index.ts';
import { LIVE_GAMES_DEFAULT, LIVE_GAMES_MAX, LiveGameView, TvView } from '../../services/watching.ts';
import { route, type Route } from '../route.ts';

export const LiveGamesQuery = z.object({
  limit: z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(LIVE_GAMES_MAX, `must be at most ${LIVE_GAMES_MAX}`)
    .default(LIVE_GAMES_DEFAULT),
});
export type LiveGamesQuery = z.infer<typeof LiveGamesQuery>;

const TAGS = ['Watching'];

/**
 * DESIGN 2.14, watching: public reads (no token needed, none looked at). Mounted before the games'
 * routes, whose `/games/:id` would otherwise take `/games/live` for a game id.
 */
export function watchingRoutes({ watching }: Services): Route[] {
  return [
    route({
      method: 'get',
      path: '/games/live',
      operationId: 'listLiveGames',
      summary: 'The live games (active, with a clock), the highest average rating first: players, time control, position, last move',
      description:
        'Public. Correspondence games are not listed (they last days). Each game follows its moves on the ' +
        '`game:<id>` channel of the realtime channel (or the game stream).',
      tags: TAGS,
      auth: 'none',
      query: LiveGamesQuery,
      response: z.array(LiveGameView),
      handler: ({ query }) => watching.liveGames(query.limit),
    }),
    route({
      method: 'get',
      path: '/tv',
      operationId: 'getTv',
      summary: 'The featured game: the live game of highest average rating, kept until it ends, then the next',
      description:
        'Public. `game` is null while no game is live. Every node features the same game. Its moves, and the next ' +
        'featured game, come on `GET /tv/feed` (NDJSON) and the realtime channel `tv`.',
      tags: TAGS,
      auth: 'none',
      response: TvView,
      handler: async () => ({ game: await watching.featured() }),
    }),
  ];
}
