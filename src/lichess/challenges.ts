// Lichess's challenges (DESIGN 2.13): create, accept, decline, cancel and list, over the same use
// cases as /v1's challenges (src/services/gameLifecycle.ts): the same rules (a time control in
// its category, PLAYER_BUSY, no challenge to oneself), the same pending game, whose id is the
// challenge's and then the game's, the same events on the players' channels.
import { z } from 'zod';
import { DECLINE_REASONS } from '../domain/statuses.ts';
import { categoryOf, DAYS_PER_MOVE, MAX_INITIAL_TIME, type TimeControl } from '../domain/timeControl.ts';
import { AppError, isAppError } from '../errors.ts';
import { OPERATION_LIMITS } from '../limits.ts';
import type { CreateGameInput } from '../services/games.ts';
import { findEventGame, listChallenges } from '../services/userEventGames.ts';
import { oneOf } from '../util/zod.ts';
import { formatChallenge, type ChallengeJson } from './challengeShapes.ts';
import type { LichessDeps } from './deps.ts';
import { formBool, formInt, given } from './query.ts';
import { lichessRoute, type LichessRoute } from './route.ts';
import type { Scope } from '../auth/scopes.ts';

/** Who may make and answer challenges: Lichess's scopes for it, any one of them. */
const WRITE: { anyOf: readonly Scope[] } = { anyOf: ['challenge:write', 'bot:play', 'board:play'] };

/** Lichess's bounds of a challenge's clock (seconds). */
const MAX_LIMIT = MAX_INITIAL_TIME;
const MAX_INCREMENT = 60;
/** The standard starting position: the only one played here. */
const START_FEN = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/** Lichess's paths beside a username's: `/api/challenge/ai` (its engine) and `/api/challenge/open`. */
const NOT_SERVED = new Set(['ai', 'open']);

const notServed = (what: string) => z.preprocess(given, z.undefined({ error: `${what} is not supported here` }));

export const CreateChallengeBody = z.object({
  rated: formBool,
  clock: z.preprocess(given, z.object({ limit: formInt(0, MAX_LIMIT), increment: formInt(0, MAX_INCREMENT) }, { error: 'must be clock.limit and clock.increment' }).optional()),
  days: z.preprocess(
    (v) => (typeof given(v) === 'string' ? Number(v) : given(v)),
    z.union(DAYS_PER_MOVE.map((n) => z.literal(n)), { error: `must be one of ${DAYS_PER_MOVE.join(', ')}` }).optional(),
  ),
  color: z.preprocess(given, oneOf(['white', 'black', 'random']).optional()),
  variant: z.preprocess(given, z.literal('standard', { error: 'only standard chess is played here' }).optional()),
  fen: z.preprocess((v) => (given(v) === START_FEN ? undefined : given(v)), z.undefined({ error: 'games from a position are not played here' })),
  keepAliveStream: z.preprocess((v) => (v === 'false' || v === false ? undefined : given(v)), z.undefined({ error: 'is not supported here: the challenge lasts its time, as without it' })),
  acceptByToken: notServed('acceptByToken'),
  rules: notServed('rules'),
});
export type CreateChallengeBody = z.infer<typeof CreateChallengeBody>;

/** Lichess's reasons, in any case (`tooFast`, `toofast`); none is `generic`. */
const byKey = new Map<string, (typeof DECLINE_REASONS)[number]>(DECLINE_REASONS.map((r) => [r.toLowerCase(), r]));
export const DeclineBody = z.object({
  reason: z.preprocess((v) => (typeof v === 'string' ? (byKey.get(v.toLowerCase()) ?? v) : given(v)), oneOf(DECLINE_REASONS).optional()),
});

export type ChallengeList = { in: ChallengeJson[]; out: ChallengeJson[] };

/** A real-time clock (its category from Lichess's bands, as /v1's) or correspondence days; unlimited games are not played here. */
function timeControlOf(body: CreateChallengeBody): Pick<CreateGameInput, 'time_control' | 'initial_time' | 'increment' | 'days_per_move'> {
  const limit = body.clock?.limit;
  const increment = body.clock?.increment;
  const clocked = limit !== undefined || increment !== undefined;
  if (clocked && body.days !== undefined) throw new AppError('VALIDATION_ERROR', 'Either clock.limit and clock.increment, or days: not both');
  if (body.days !== undefined) return { time_control: 'correspondence', days_per_move: body.days };
  if (limit === undefined || increment === undefined) {
    throw new AppError('VALIDATION_ERROR', clocked ? 'clock.limit and clock.increment go together' : 'clock.limit and clock.increment, or days, are required: unlimited games are not played here');
  }
  if (limit === 0 && increment === 0) throw new AppError('VALIDATION_ERROR', 'clock.limit and clock.increment cannot both be 0');
  const time_control: TimeControl = categoryOf(limit, increment);
  return { time_control, initial_time: limit, increment };
}

/** A challenge that is not the caller's to answer is none for them (Lichess answers 404). */
function asChallenge(error: unknown): never {
  if (isAppError(error) && (error.code === 'GAME_NOT_FOUND' || error.code === 'FORBIDDEN')) throw new AppError('GAME_NOT_FOUND', 'Challenge not found');
  throw error;
}

export function challengeRoutes(d: LichessDeps): LichessRoute[] {
  const { games, users } = d.services;
  const { ctx } = d;
  const publicUrl = ctx.config.publicUrl;
  return [
    lichessRoute({
      method: 'get',
      path: '/api/challenge',
      auth: { anyOf: ['challenge:read'] },
      handler: async ({ user }): Promise<ChallengeList> => {
        const all = (await listChallenges(ctx, user!.id)).map((e) => formatChallenge(e, user!.id, publicUrl));
        return { in: all.filter((c) => c.direction === 'in'), out: all.filter((c) => c.direction === 'out') };
      },
    }),
    lichessRoute({
      method: 'post',
      path: '/api/challenge/:username',
      auth: WRITE,
      // A challenge is one whatever API sends it: the same counter as POST /v1/games's.
      limit: { name: 'challenge', points: OPERATION_LIMITS.challenge },
      body: CreateChallengeBody,
      handler: async ({ user, params, body }): Promise<ChallengeJson> => {
        const me = user!.id;
        // Lichess's challenges of its AI and open challenges have these paths: neither is served here.
        if (NOT_SERVED.has(params.username.toLowerCase())) throw new AppError('NOT_FOUND', `POST /api/challenge/${params.username} is not served here`);
        const opponent = await users.getPublicByUsername(params.username);
        if (opponent.id === me) throw new AppError('VALIDATION_ERROR', 'You cannot challenge yourself');
        const input: CreateGameInput = { type: 'challenge', opponent_id: opponent.id, ...timeControlOf(body), rated: body.rated ?? false, color: body.color ?? 'random' };
        const created = await games.createGame(me, input).catch(asChallenge);
        return formatChallenge(await findEventGame(ctx, me, created.id), me, publicUrl);
      },
    }),
    lichessRoute({
      method: 'post',
      path: '/api/challenge/:id/accept',
      auth: WRITE,
      handler: async ({ user, params }) => {
        await games.acceptGame(user!.id, params.id).catch(asChallenge);
      },
    }),
    lichessRoute({
      method: 'post',
      path: '/api/challenge/:id/decline',
      auth: WRITE,
      body: DeclineBody,
      handler: async ({ user, params, body }) => {
        await games.declineGame(user!.id, params.id, body.reason).catch(asChallenge);
      },
    }),
    lichessRoute({
      method: 'post',
      path: '/api/challenge/:id/cancel',
      auth: WRITE,
      handler: async ({ user, params, receivedAt }) => {
        // Lichess's cancel also aborts the game an accepted challenge became, while it may be aborted.
        const game = await games.getGame(user!.id, params.id).catch(asChallenge);
        if (game.status === 'active') await games.command('abort', user!.id, game.id, {}, { receivedAt });
        else await games.cancelGame(user!.id, game.id).catch(asChallenge);
      },
    }),
  ];
}
