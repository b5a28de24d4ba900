import { z } from 'zod';
import { gameReader, type AuthUser } from '../../auth/scopes.ts';
import { COLORS, LIST_STATUSES, RESULTS } from '../../domain/game.ts';
import { DAYS_PER_MOVE, MAX_INCREMENT, MAX_INITIAL_TIME, TIME_CONTROLS } from '../../domain/timeControl.ts';
import {
  DrawAnswerResult,
  DrawOfferResult,
  GameDetail,
  GameEndResult,
  GameListItem,
  MoveResult,
  PendingGameView,
  PendingRematchView,
  TakebackAnswerResult,
  TakebackOfferResult,
} from '../../services/gameViews.ts';
import { NO_VIEWER } from '../../services/gameAccess.ts';
import { GAME_COMMANDS } from '../../services/gameCommandCatalogue.ts';
import type { Services } from '../../services/index.ts';
import { paginate } from '../pagination.ts';
import { HttpAnswer, route, type Route } from '../route.ts';
import { pageQuery } from '../validate.ts';
import { oneOf } from '../../util/zod.ts';
import { PGN_TYPE, PgnOptionsQuery } from './gameExport.ts';
import { MAX_LEVEL, MIN_LEVEL } from '../../domain/computer.ts';

export const CreateGameBody = z.object({
  type: oneOf(['challenge', 'matchmaking', 'computer']),
  level: z
    .number({ error: `must be an integer from ${MIN_LEVEL} to ${MAX_LEVEL}` })
    .int(`must be an integer from ${MIN_LEVEL} to ${MAX_LEVEL}`)
    .min(MIN_LEVEL, `must be an integer from ${MIN_LEVEL} to ${MAX_LEVEL}`)
    .max(MAX_LEVEL, `must be an integer from ${MIN_LEVEL} to ${MAX_LEVEL}`)
    .optional()
    .meta({ description: "required when type is computer: the engine's level, 1 (weak, fast) to 8 (full strength)" }),
  opponent_id: z.uuid({ error: 'must be a user id (uuid)' }).optional().meta({ description: 'required when type is challenge' }),
  time_control: oneOf(TIME_CONTROLS).meta({
    description:
      'must be the category of initial_time + 40 × increment: bullet < 180 s ≤ blitz < 480 s ≤ rapid < 1500 s ≤ classical; ' +
      'or correspondence, with days_per_move (challenges only)',
  }),
  initial_time: z
    .number({ error: 'must be an integer number of seconds' })
    .int('must be an integer number of seconds')
    .min(0, 'must be at least 0')
    .max(MAX_INITIAL_TIME, `must be at most ${MAX_INITIAL_TIME}`)
    .optional()
    .meta({ description: 'required unless time_control is correspondence (then ignored and reported 0)' }),
  increment: z
    .number({ error: 'must be an integer number of seconds' })
    .int('must be an integer number of seconds')
    .min(0, 'must be at least 0')
    .max(MAX_INCREMENT, `must be at most ${MAX_INCREMENT}`)
    .optional()
    .meta({ description: 'required unless time_control is correspondence (then ignored and reported 0)' }),
  days_per_move: z
    .number({ error: `must be one of ${DAYS_PER_MOVE.join(', ')}` })
    .optional()
    .meta({ description: `correspondence only, and required there: the days each move may take, one of ${DAYS_PER_MOVE.join(', ')}` }),
  rated: z.boolean({ error: 'must be a boolean' }).default(true).meta({ description: 'ignored for type computer (always unrated)' }),
  color: oneOf([...COLORS, 'random']).default('random'),
}).check(
  // A clock needs both numbers; named with the body's other faults (`when`: also when those exist).
  z.superRefine(
    (body, ctx) => {
      if (body.type === 'computer' && body.level === undefined) ctx.addIssue({ code: 'custom', path: ['level'], message: 'required when type is computer' });
      if (body.time_control === 'correspondence') return;
      for (const field of ['initial_time', 'increment'] as const) {
        if (body[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'required unless time_control is correspondence' });
      }
    },
    { when: (payload) => typeof payload.value === 'object' && payload.value !== null },
  ),
);
export type CreateGameBody = z.infer<typeof CreateGameBody>;

// A command's body is its socket message's payload (src/services/gameCommandCatalogue.ts) without
// the socket's own fields (`id`, a move's `lag`) and the ids the path carries.
const MoveBody = GAME_COMMANDS.move.payload.omit({ id: true, lag: true });
const ClaimBody = GAME_COMMANDS.claim.payload.omit({ id: true });
const DrawAnswerBody = GAME_COMMANDS.answer_draw.payload.omit({ id: true, offer_id: true });
const TakebackAnswerBody = GAME_COMMANDS.answer_takeback.payload.omit({ id: true, takeback_id: true });

export const ListGamesQuery = z.object({
  status: oneOf(LIST_STATUSES).optional().meta({
    description:
      "pending: the caller's own pending games only (challenges sent and received, open seeks), each with direction; " +
      'any other listing leaves pending games out',
  }),
  player_id: z.uuid({ error: 'must be a user id (uuid)' }).optional(),
  time_control: oneOf(TIME_CONTROLS).optional(),
  result: oneOf(RESULTS).optional(),
  tournament_id: z.uuid({ error: 'must be a tournament id (uuid)' }).optional().meta({ description: 'games of this arena only' }),
  my_turn: oneOf(['true', 'false']).optional().meta({
    description:
      "true: only the caller's active games where it is the caller's turn (with time_control=correspondence: " +
      'the correspondence games waiting for the caller); false: only those where it is not',
  }),
  search: z.string({ error: 'must be a string' }).max(100, 'must be at most 100 characters').optional()
    .meta({ description: "substring of either player's username, case-insensitive" }),
  ...pageQuery,
  sort: oneOf(['created_at', 'updated_at', '-created_at', '-updated_at']).optional().meta({ description: '`field` follows `order`; `-field` is descending' }),
  order: oneOf(['asc', 'desc']).optional().meta({ description: 'default desc' }),
});
export type ListGamesQuery = z.infer<typeof ListGamesQuery>;

const TAGS = ['Games'];
const pgnAnswer = (pgn: string) => new HttpAnswer(200, pgn, { 'Content-Type': `${PGN_TYPE}; charset=utf-8` });
/** Every route about one game answers 404 for an unknown, malformed or hidden (pending) id. */
const LIVE_ERRORS = ['GAME_NOT_FOUND', 'NOT_A_PLAYER', 'GAME_NOT_ACTIVE', 'SERVICE_UNAVAILABLE'];

export function gameRoutes({ games }: Services): Route[] {
  const move = (path: string, hidden: boolean) =>
    route({
      method: hidden ? 'patch' : 'post',
      path,
      ...(hidden ? { hidden } : { operationId: 'makeMove' }),
      ids: { id: 'GAME_NOT_FOUND' },
      summary: hidden ? 'Make a move (alias of POST /games/{id}/moves)' : 'Make a move',
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      limit: 'makeMove',
      body: MoveBody,
      response: MoveResult,
      errors: [...LIVE_ERRORS, 'NOT_YOUR_TURN', 'INVALID_MOVE'],
      handler: ({ user, params, body, idempotencyKey, receivedAt }) => games.command('move', user!.id, params.id, body, { idempotencyKey, receivedAt }),
    });

  return [
    route({
      method: 'post',
      path: '/games',
      operationId: 'createGame',
      summary:
        'Challenge a player (type challenge) or seek an opponent (type matchmaking): 201 pending, or 201 active when paired at once; ' +
        "play this service's engine (type computer, level 1–8): 201 active, unrated",
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      // Matchmaking and challenges share the route but not the limit (10/min vs 5/min).
      limit: (req) => ((req.body as { type?: unknown } | undefined)?.type === 'matchmaking' ? 'matchmaking' : 'challenge'),
      status: 201,
      body: CreateGameBody,
      response: z.union([PendingGameView, GameDetail]),
      discriminator: { property: 'status', mapping: { pending: PendingGameView, active: GameDetail } },
      // FORBIDDEN: a bot account seeks (DESIGN 2.13: it plays through challenges only).
      errors: ['USER_NOT_FOUND', 'PLAYER_BUSY', 'FORBIDDEN', 'SERVICE_UNAVAILABLE'],
      handler: ({ user, body }) => games.createGame(user!.id, body),
    }),
    route({
      method: 'get',
      path: '/games',
      operationId: 'listGames',
      summary: "List games (pending ones only with status=pending: the caller's own, with direction)",
      tags: TAGS,
      scope: 'games:read',
      auth: 'required',
      query: ListGamesQuery,
      response: z.array(GameListItem),
      envelope: 'list',
      handler: async ({ user, query }) => {
        const { games: data, total } = await games.listGames(user!.id, query);
        return new HttpAnswer(200, { success: true, data, pagination: paginate(query, total) });
      },
    }),
    route({
      method: 'get',
      path: '/games/:id',
      operationId: 'getGame',
      ids: { id: 'GAME_NOT_FOUND' },
      summary: 'Read a game (its PGN with Accept: application/x-chess-pgn)',
      description:
        '`Accept: application/x-chess-pgn` (preferred over JSON) answers what `GET /games/{id}/pgn` does, with the same options ' +
        '(`clocks`, `evals`, `opening`; ignored for JSON); JSON otherwise.',
      tags: TAGS,
      scope: 'public',
      auth: 'required',
      limit: 'getGame',
      query: PgnOptionsQuery,
      response: GameDetail,
      // The PGN form is told in the description, not as a second media type: a generated client
      // would type every read of a game as "detail or string". GET /games/{id}/pgn is its operation.
      errors: ['GAME_NOT_FOUND'],
      handler: async ({ req, user, params, query }) => {
        if (req.accepts(['application/json', PGN_TYPE]) === PGN_TYPE) return pgnAnswer(await games.getPgn(viewerOf(user), params.id, query));
        return games.getGame(viewerOf(user), params.id);
      },
    }),
    route({
      method: 'get',
      path: '/games/:id/pgn',
      operationId: 'getGamePgn',
      ids: { id: 'GAME_NOT_FOUND' },
      envelope: 'raw',
      contentType: PGN_TYPE,
      summary: 'Export a game as PGN (application/x-chess-pgn)',
      tags: TAGS,
      scope: 'public',
      auth: 'required',
      query: PgnOptionsQuery,
      errors: ['GAME_NOT_FOUND'],
      handler: async ({ user, params, query }) => pgnAnswer(await games.getPgn(viewerOf(user), params.id, query)),
    }),
    route({
      method: 'post',
      path: '/games/:id/accept',
      operationId: 'acceptChallenge',
      ids: { id: 'GAME_NOT_FOUND' },
      summary: 'Accept a challenge (the challenged player): the game starts',
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      response: GameDetail,
      errors: ['GAME_NOT_FOUND', 'FORBIDDEN', 'GAME_NOT_PENDING', 'PLAYER_BUSY'],
      handler: ({ user, params }) => games.acceptGame(user!.id, params.id),
    }),
    route({
      method: 'post',
      path: '/games/:id/decline',
      operationId: 'declineChallenge',
      ids: { id: 'GAME_NOT_FOUND' },
      summary: 'Decline a challenge (the challenged player)',
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      response: GameDetail,
      errors: ['GAME_NOT_FOUND', 'FORBIDDEN', 'GAME_NOT_PENDING'],
      handler: ({ user, params }) => games.declineGame(user!.id, params.id),
    }),
    route({
      method: 'post',
      path: '/games/:id/cancel',
      operationId: 'cancelChallenge',
      ids: { id: 'GAME_NOT_FOUND' },
      summary: 'Cancel a challenge (the challenger)',
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      response: GameDetail,
      errors: ['GAME_NOT_FOUND', 'FORBIDDEN', 'GAME_NOT_PENDING'],
      handler: ({ user, params }) => games.cancelGame(user!.id, params.id),
    }),
    move('/games/:id/moves', false),
    move('/games/:id/move', true),
    route({
      method: 'post',
      path: '/games/:id/resign',
      operationId: 'resign',
      ids: { id: 'GAME_NOT_FOUND' },
      summary: 'Resign',
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      response: GameEndResult,
      errors: LIVE_ERRORS,
      handler: ({ user, params, idempotencyKey, receivedAt }) => games.command('resign', user!.id, params.id, {}, { idempotencyKey, receivedAt }),
    }),
    route({
      method: 'post',
      path: '/games/:id/draw',
      operationId: 'offerDraw',
      ids: { id: 'GAME_NOT_FOUND' },
      summary: "Offer a draw (accepts the opponent's pending offer)",
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      response: DrawOfferResult,
      errors: [...LIVE_ERRORS, 'DRAW_OFFER_PENDING', 'DRAW_OFFER_LIMIT'],
      handler: ({ user, params, idempotencyKey, receivedAt }) => games.command('offer_draw', user!.id, params.id, {}, { idempotencyKey, receivedAt }),
    }),
    route({
      method: 'post',
      path: '/games/:id/draw/:offer_id',
      operationId: 'answerDraw',
      ids: { id: 'GAME_NOT_FOUND', offer_id: 'DRAW_OFFER_NOT_FOUND' },
      summary: 'Answer a draw offer (the recipient)',
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      body: DrawAnswerBody,
      response: DrawAnswerResult,
      errors: [...LIVE_ERRORS, 'FORBIDDEN', 'DRAW_OFFER_NOT_FOUND', 'DRAW_OFFER_NOT_PENDING'],
      handler: ({ user, params, body, idempotencyKey, receivedAt }) =>
        games.command('answer_draw', user!.id, params.id, { ...body, offer_id: params.offer_id }, { idempotencyKey, receivedAt }),
    }),
    route({
      method: 'post',
      path: '/games/:id/rematch',
      operationId: 'requestRematch',
      ids: { id: 'GAME_NOT_FOUND' },
      summary:
        'Ask for a rematch of a finished game: 201 a pending challenge (colours swapped); 200 the same one when asked again, ' +
        "or the new game, active, when it accepts the opponent's rematch",
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      limit: 'challenge',
      status: 201,
      response: z.union([PendingRematchView, GameDetail]),
      discriminator: { property: 'status', mapping: { pending: PendingRematchView, active: GameDetail } },
      also: {
        200: {
          description: "Asked again: the same pending challenge; or the opponent's rematch accepted: the new game, active",
          response: z.union([PendingRematchView, GameDetail]),
        },
      },
      errors: ['GAME_NOT_FOUND', 'NOT_A_PLAYER', 'GAME_NOT_FINISHED', 'REMATCH_NOT_ALLOWED', 'PLAYER_BUSY'],
      handler: async ({ user, params }) => {
        const { status, data } = await games.requestRematch(user!.id, params.id);
        return new HttpAnswer(status, { success: true, data });
      },
    }),
    route({
      method: 'post',
      path: '/games/:id/abort',
      operationId: 'abortGame',
      ids: { id: 'GAME_NOT_FOUND' },
      summary: 'Abort the game before both sides have made their first move (abandoned, unrated)',
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      response: GameEndResult,
      errors: [...LIVE_ERRORS, 'GAME_NOT_ABORTABLE'],
      handler: ({ user, params, idempotencyKey, receivedAt }) => games.command('abort', user!.id, params.id, {}, { idempotencyKey, receivedAt }),
    }),
    route({
      method: 'post',
      path: '/games/:id/claim',
      operationId: 'claimGame',
      ids: { id: 'GAME_NOT_FOUND' },
      summary: 'Claim the win (or a draw) when the opponent, who had joined the room, has been gone for CLAIM_SECONDS',
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      body: ClaimBody,
      response: GameEndResult,
      errors: [...LIVE_ERRORS, 'CLAIM_NOT_ALLOWED'],
      handler: ({ user, params, body, idempotencyKey, receivedAt }) => games.command('claim', user!.id, params.id, body, { idempotencyKey, receivedAt }),
    }),
    route({
      method: 'post',
      path: '/games/:id/takeback',
      operationId: 'offerTakeback',
      ids: { id: 'GAME_NOT_FOUND' },
      summary: "Propose a takeback: of your last move on the opponent's turn (1 ply), of your last move and the reply on yours (2)",
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      response: TakebackOfferResult,
      errors: [...LIVE_ERRORS, 'TAKEBACK_PENDING', 'TAKEBACK_LIMIT', 'TAKEBACK_NOT_ALLOWED'],
      handler: ({ user, params, idempotencyKey, receivedAt }) => games.command('takeback', user!.id, params.id, {}, { idempotencyKey, receivedAt }),
    }),
    route({
      method: 'post',
      path: '/games/:id/takeback/:takeback_id',
      operationId: 'answerTakeback',
      ids: { id: 'GAME_NOT_FOUND', takeback_id: 'TAKEBACK_NOT_FOUND' },
      summary: 'Answer a takeback proposal (the recipient); accepted, its plies leave the game',
      tags: TAGS,
      scope: 'games:play',
      auth: 'required',
      body: TakebackAnswerBody,
      response: TakebackAnswerResult,
      errors: [...LIVE_ERRORS, 'FORBIDDEN', 'TAKEBACK_NOT_FOUND', 'TAKEBACK_NOT_PENDING'],
      handler: ({ user, params, body, idempotencyKey, receivedAt }) =>
        games.command('answer_takeback', user!.id, params.id, { ...body, takeback_id: params.takeback_id }, { idempotencyKey, receivedAt }),
    }),
  ];
}

/** Who reads a game: the caller, or anyone for a personal token without games:read (its pending games stay hidden, as on its streams). */
const viewerOf = (user: AuthUser | undefined): string => gameReader(user)?.id ?? NO_VIEWER;
