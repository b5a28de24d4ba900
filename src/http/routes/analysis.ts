import { z } from 'zod';
import { MOVE_CLASSES } from '../../domain/accuracy.ts';
import { gameReader } from '../../auth/scopes.ts';
import { NO_VIEWER } from '../../services/gameAccess.ts';
import type { Services } from '../../services/index.ts';
import { HttpAnswer, route, type Route } from '../route.ts';

const bySide = <T extends z.ZodType>(t: T) => z.object({ white: t, black: t });

const AnalysedMove = z.object({
  san: z.string(),
  evaluation: z.number().meta({ description: "of the position after the move: pawns from White's point of view, ±100 for a forced mate" }),
  mate: z.number().int().nullable().meta({ description: 'signed moves to mate (positive: White mates; 0: the move mated), null when no mate is forced' }),
  best_move: z.string().nullable().meta({ description: "the engine's best move in the position before, in SAN" }),
  classification: z.enum(MOVE_CLASSES).meta({ description: "best (the engine's move), else by the mover's Win% drop: < 2 excellent, < 5 good, < 10 inaccuracy, < 15 mistake, else blunder" }),
});

export const GameAnalysisView = z.object({
  game_id: z.uuid(),
  analyzed_at: z.iso.datetime(),
  engine: z.string(),
  depth: z.number().int(),
  accuracy: bySide(z.number().nullable()).meta({ description: "Lichess's game accuracy per side, 0–100 (null for a side without a move)" }),
  mistakes: bySide(z.number().int()),
  blunders: bySide(z.number().int()),
  moves: z.array(z.object({ move_number: z.number().int(), white: AnalysedMove.nullable(), black: AnalysedMove.nullable() })),
  opening: z.object({ name: z.string(), eco: z.string(), moves: z.string() }).nullable(),
});

/** The 202 answer while the analysis is being made (with Retry-After). */
export const AnalysisPendingView = z.object({
  game_id: z.uuid(),
  status: z.enum(['queued', 'running']),
  progress: z.object({ done: z.number().int(), total: z.number().int() }),
});

export function analysisRoutes({ analysis }: Services): Route[] {
  return [
    route({
      method: 'get',
      path: '/games/:id/analysis',
      operationId: 'getAnalysis',
      ids: { id: 'GAME_NOT_FOUND' },
      summary:
        'Read a finished game\'s engine analysis: 200 when done; 202 `{game_id, status: queued|running, progress: {done, total}}` with Retry-After while it is made',
      description:
        'Public, as on Lichess: no token is needed to read a finished game\'s analysis. A game still being played, or aborted, ' +
        'has none, for anyone: **409** `GAME_NOT_FINISHED`; a pending challenge exists only for its players (**404** for ' +
        'anyone else, signed out included).',
      tags: ['Games'],
      scope: 'public',
      auth: 'optional',
      limit: 'getGame',
      response: GameAnalysisView,
      also: { 202: { description: 'The analysis is queued or running: ask again after Retry-After seconds', response: AnalysisPendingView, headers: ['Retry-After'] } },
      errors: ['GAME_NOT_FOUND', 'GAME_NOT_FINISHED'],
      handler: async ({ user, params }) => {
        // Signed out (or a personal token without games:read), the reader is nobody's opponent.
        const answer = await analysis.getAnalysis(gameReader(user)?.id ?? NO_VIEWER, params.id);
        if (answer.ready) return answer.analysis;
        return new HttpAnswer(202, { success: true, data: answer.pending }, { 'Retry-After': String(answer.retryAfterSeconds) });
      },
    }),
  ];
}
