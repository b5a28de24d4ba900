// Lichess's game exports (DESIGN 2.13 over 2.12): a user's games, streamed by the export service
// under Lichess's parameters, as PGN or NDJSON lines of Lichess's GameJson; and one game's PGN, or
// its GameJson with Accept: application/json.
import { z } from 'zod';
import { gameReader } from '../auth/scopes.ts';
import { COLORS } from '../domain/game.ts';
import type { TimeControl } from '../domain/timeControl.ts';
import { AppError } from '../errors.ts';
import { NDJSON_TYPE, PGN_TYPE, responseSink } from '../http/routes/gameExport.ts';
import { limitKey } from '../http/rateLimit.ts';
import { NO_VIEWER } from '../services/gameAccess.ts';
import type { LichessDeps } from './deps.ts';
import { formatGameJson, type GameJson } from './gameJson.ts';
import { commaList, flag, integer, optionalFlag } from './query.ts';
import { lichessRoute, STREAMED, type LichessRoute } from './route.ts';

/** Lichess's perf types (doc/specs/schemas/PerfType.yaml). */
export const PERF_TYPES = [
  'ultraBullet', 'bullet', 'blitz', 'rapid', 'classical', 'correspondence',
  'chess960', 'crazyhouse', 'antichess', 'atomic', 'horde', 'kingOfTheHill', 'racingKings', 'threeCheck',
] as const;

/**
 * The categories a `perfType` list selects: the speeds are this service's categories
 * (ultraBullet games are filed as bullet, so it selects bullet); a variant selects nothing, as
 * only standard chess is played here.
 */
const CATEGORY_OF: Partial<Record<(typeof PERF_TYPES)[number], TimeControl>> = {
  ultraBullet: 'bullet', bullet: 'bullet', blitz: 'blitz', rapid: 'rapid', classical: 'classical', correspondence: 'correspondence',
};

/** Lichess's epoch-ms parameters: its minimum is 2013's first game; any date since the epoch is taken here. */
const epochMs = integer(0, 8.64e15);

/**
 * GET /api/games/user/{username}'s parameters. Read and honoured: since, until, max, vs, rated,
 * perfType, color, moves, clocks, evals (PGN), opening, finished; taken and ignored: the rest.
 */
const UserGamesQuery = z.object({
  since: epochMs.optional(),
  until: epochMs.optional(),
  max: integer(1, Number.MAX_SAFE_INTEGER).optional(),
  vs: z.string({ error: 'must be a username' }).min(1, 'must be a username').max(30, 'must be a username').optional(),
  rated: optionalFlag(),
  perfType: commaList(PERF_TYPES.length, 'perf types')
    .refine((list) => list.every((p) => (PERF_TYPES as readonly string[]).includes(p)), `must be among ${PERF_TYPES.join(', ')}`)
    .optional(),
  color: z.enum(COLORS, { error: 'must be white or black' }).optional(),
  moves: flag(true),
  clocks: flag(false),
  evals: flag(false),
  opening: flag(false),
  finished: flag(true),
  ongoing: flag(false),
  pgnInJson: flag(false),
  tags: flag(true),
  analysed: optionalFlag(),
  accuracy: flag(false),
  division: flag(false),
  literate: flag(false),
  lastFen: flag(false),
  withBookmarked: flag(false),
  sort: z.enum(['dateDesc', 'dateAsc'], { error: 'must be dateDesc or dateAsc' }).default('dateDesc'),
});

/** GET /game/export/{id}'s parameters: Lichess's defaults (clocks, evals and the opening on). */
const GameQuery = z.object({
  moves: flag(true),
  pgnInJson: flag(false),
  tags: flag(true),
  clocks: flag(true),
  evals: flag(true),
  opening: flag(true),
  accuracy: flag(false),
  division: flag(true),
  literate: flag(false),
  withBookmarked: flag(false),
});

const JSON_TYPE = 'application/json';

export function exportRoutes({ services, ctx }: LichessDeps): LichessRoute[] {
  return [
    lichessRoute({
      method: 'get',
      path: '/api/games/user/:username',
      auth: 'optional',
      query: UserGamesQuery,
      handler: async ({ req, res, params, query: q, user }) => {
        // The export reads newest first, in batches after the last game sent: it cannot go the other way.
        if (q.sort === 'dateAsc') throw new AppError('VALIDATION_ERROR', 'sort: only dateDesc (newest first) is served here');
        const format = req.accepts([PGN_TYPE, NDJSON_TYPE]) === NDJSON_TYPE ? 'ndjson' : 'pgn';
        const { id } = await services.users.getPublicByUsername(params.username);
        const sink = responseSink(res, format === 'ndjson' ? NDJSON_TYPE : PGN_TYPE);
        // Only finished games are exported here: asked for the others alone, there is nothing.
        if (!q.finished) {
          sink.start();
          await sink.end();
          return STREAMED;
        }
        const timeControls = q.perfType && [...new Set(q.perfType.flatMap((p) => CATEGORY_OF[p as keyof typeof CATEGORY_OF] ?? []))];
        const query = {
          since: q.since,
          until: q.until,
          max: q.max,
          rated: q.rated,
          time_controls: timeControls,
          color: q.color,
          vs: q.vs,
          clocks: q.clocks,
          evals: q.evals,
          opening: q.opening,
        };
        const line = (game: Parameters<typeof formatGameJson>[0]): GameJson => formatGameJson(game, q);
        try {
          await services.exports.exportGames({ caller: limitKey(user, req.ip), address: req.ip ?? 'unknown' }, id, query, format, sink, line);
        } catch (error) {
          // Before the stream starts, the error is an answer; after, the client can only see the stream break.
          if (!res.headersSent) throw error;
          ctx.log.error({ err: error, userId: id }, 'Lichess game export failed mid-stream');
          res.destroy();
        }
        return STREAMED;
      },
    }),
    lichessRoute({
      method: 'get',
      path: '/game/export/:id',
      auth: 'optional',
      query: GameQuery,
      handler: async ({ req, res, params, query: q, user }) => {
        const viewer = gameReader(user)?.id ?? NO_VIEWER;
        const options = { clocks: q.clocks, evals: q.evals, opening: q.opening };
        if (req.accepts([PGN_TYPE, JSON_TYPE]) !== JSON_TYPE) {
          res.status(200).type(`${PGN_TYPE}; charset=utf-8`).send(await services.games.getPgn(viewer, params.id, options));
          return STREAMED;
        }
        const game = await services.games.getGame(viewer, params.id);
        // A pending game (a challenge, a seek) is no game on Lichess: its export is 404.
        if (game.status === 'pending') throw new AppError('GAME_NOT_FOUND', 'Game not found');
        const pgn = q.pgnInJson ? await services.games.getPgn(viewer, params.id, options) : undefined;
        return formatGameJson(game, { ...q, pgn });
      },
    }),
  ];
}
