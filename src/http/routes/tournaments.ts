import { z } from 'zod';
import { TOURNAMENT_STATUSES } from '../../domain/statuses.ts';
import type { Services } from '../../services/index.ts';
import { TOURNAMENT_SORTS } from '../../services/tournaments.ts';
import { createTournamentBody, StandingView, TournamentSummaryView, TournamentView } from '../../services/tournamentViews.ts';
import { paginate } from '../pagination.ts';
import { HttpAnswer, route, type Route } from '../route.ts';
import { pageQuery } from '../validate.ts';

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

export const ListTournamentsQuery = z.object({
  status: oneOf(TOURNAMENT_STATUSES).optional().meta({ description: 'default running' }),
  sort: oneOf([...TOURNAMENT_SORTS, ...TOURNAMENT_SORTS.map((s) => `-${s}` as const)])
    .optional()
    .meta({ description: 'default starts_at (running, upcoming) or ends_at (finished); `field` follows `order`, `-field` is descending' }),
  order: oneOf(['asc', 'desc']).optional().meta({ description: 'default asc for running and upcoming, desc for finished' }),
  ...pageQuery,
});

const PageQuery = z.object(pageQuery);
const tags = ['Tournaments'];
/** A token is optional on reads, but one that is invalid, expired or revoked is still refused. */
const READ_ERRORS = ['UNAUTHORIZED', 'TOURNAMENT_NOT_FOUND'];

/** DESIGN 2.10 "Tournaments": arenas like Lichess's. Reads are public (`joined` with a token), writes need one. */
export function tournamentRoutes({ tournaments, ctx }: Services): Route[] {
  return [
    route({
      method: 'post',
      path: '/tournaments',
      operationId: 'createTournament',
      summary: 'Create an arena; the creator is not joined (join like anyone)',
      tags,
      scope: 'tournaments:write',
      auth: 'required',
      body: createTournamentBody(ctx.config.tournamentMinMinutes),
      status: 201,
      response: TournamentView,
      errors: ['TOURNAMENT_LIMIT'],
      handler: ({ user, body }) => tournaments.create(user!.id, body),
    }),
    route({
      method: 'get',
      path: '/tournaments',
      operationId: 'listTournaments',
      summary: 'List arenas by status: running (default) and upcoming by starts_at, finished by ends_at, newest first',
      tags,
      scope: 'public',
      auth: 'optional',
      query: ListTournamentsQuery,
      envelope: 'list',
      response: z.array(TournamentSummaryView),
      errors: ['UNAUTHORIZED'],
      handler: async ({ user, query }) => {
        const page = { page: query.page, limit: query.limit };
        const { tournaments: found, total } = await tournaments.list(user?.id, query);
        return new HttpAnswer(200, { success: true, data: found, pagination: paginate(page, total) });
      },
    }),
    route({
      method: 'get',
      path: '/tournaments/:id',
      operationId: 'getTournament',
      ids: { id: 'TOURNAMENT_NOT_FOUND' },
      summary: 'Read an arena with the first 100 standings',
      tags,
      scope: 'public',
      auth: 'optional',
      response: TournamentView,
      errors: READ_ERRORS,
      handler: ({ user, params }) => tournaments.get(user?.id, params.id),
    }),
    route({
      method: 'get',
      path: '/tournaments/:id/standings',
      operationId: 'getTournamentStandings',
      ids: { id: 'TOURNAMENT_NOT_FOUND' },
      summary: 'Page through every standing of an arena, ranked',
      tags,
      scope: 'public',
      auth: 'optional',
      query: PageQuery,
      envelope: 'list',
      response: z.array(StandingView),
      errors: READ_ERRORS,
      handler: async ({ params, query }) => {
        const page = { page: query.page, limit: query.limit };
        const { standings, total } = await tournaments.standings(params.id, page);
        return new HttpAnswer(200, { success: true, data: standings, pagination: paginate(page, total) });
      },
    }),
    route({
      method: 'post',
      path: '/tournaments/:id/join',
      operationId: 'joinTournament',
      ids: { id: 'TOURNAMENT_NOT_FOUND' },
      summary: 'Join an arena before or while it runs (again: 200 as is; a withdrawn player comes back with their points)',
      tags,
      scope: 'tournaments:write',
      auth: 'required',
      response: TournamentView,
      // FORBIDDEN: a bot account (DESIGN 2.13: it plays through challenges only).
      errors: ['TOURNAMENT_NOT_FOUND', 'TOURNAMENT_FULL', 'TOURNAMENT_FINISHED', 'FORBIDDEN', 'SERVICE_UNAVAILABLE'],
      handler: ({ user, params }) => tournaments.join(user!.id, params.id),
    }),
    route({
      method: 'post',
      path: '/tournaments/:id/withdraw',
      operationId: 'withdrawFromTournament',
      ids: { id: 'TOURNAMENT_NOT_FOUND' },
      summary: 'Stop being paired (points kept, a game in progress counts); before the start it removes you; not joined: 200 as is',
      tags,
      scope: 'tournaments:write',
      auth: 'required',
      response: TournamentView,
      errors: ['TOURNAMENT_NOT_FOUND', 'TOURNAMENT_FINISHED', 'SERVICE_UNAVAILABLE'],
      handler: ({ user, params }) => tournaments.withdraw(user!.id, params.id),
    }),
  ];
}
