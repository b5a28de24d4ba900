import type { Response } from 'express';
import { z } from 'zod';
import { COLORS } from '../../domain/game.ts';
import { TIME_CONTROLS } from '../../domain/timeControl.ts';
import type { ExportFormat, ExportSink } from '../../services/gameExport.ts';
import { GameDetail } from '../../services/gameViews.ts';
import type { Services } from '../../services/index.ts';
import { limitKey } from '../rateLimit.ts';
import { route, STREAMED, type Route } from '../route.ts';

export const PGN_TYPE = 'application/x-chess-pgn';
export const NDJSON_TYPE = 'application/x-ndjson';

const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { error: `must be one of ${values.join(', ')}` });
const flag = (fallback: boolean, description: string) =>
  oneOf(['true', 'false']).default(fallback ? 'true' : 'false').transform((v) => v === 'true').meta({ description });
const epochMs = (description: string) =>
  z.coerce.number({ error: 'must be an integer (ms since the epoch)' }).int('must be an integer (ms since the epoch)')
    .min(0, 'must be at least 0').max(8.64e15, 'must be a date').optional().meta({ description });

/** The PGN options of GET /games/{id}/pgn and of the export: one game's PGN is the same in both. */
export const PgnOptionsQuery = z.object({
  clocks: flag(true, 'true: a `[%clk h:mm:ss]` comment after each move'),
  evals: flag(false, 'true: a `[%eval]` comment after each move when the game has a finished analysis'),
  opening: flag(true, 'true: `ECO` and `Opening` tags'),
});

export const ExportQuery = PgnOptionsQuery.extend({
  since: epochMs('games that ended at or after this time (ms since the epoch)'),
  until: epochMs('games that ended before this time (ms since the epoch)'),
  max: z.coerce.number({ error: 'must be a positive integer' }).int('must be a positive integer').min(1, 'must be at least 1').optional()
    .meta({ description: 'at most this many games (the newest)' }),
  rated: oneOf(['true', 'false']).optional().transform((v) => (v === undefined ? undefined : v === 'true'))
    .meta({ description: 'rated games only (true) or casual ones only (false)' }),
  time_control: oneOf(TIME_CONTROLS).optional(),
  color: oneOf(COLORS).optional().meta({ description: 'the games the user played with this colour' }),
  vs: z.string({ error: 'must be a username' }).min(1, 'must be a username').max(20, 'must be at most 20 characters')
    .refine((v) => !/\p{Cc}/u.test(v), 'must not contain control characters').optional()
    .meta({ description: "the opponent's username (case-insensitive); nobody by that name matches no game" }),
});

/**
 * Writes each batch to the response and resolves once the client has taken it: `res.write`
 * returning false means the socket's buffer is full, so the next batch waits for 'drain'. False
 * once the client has gone (the response closed): the export stops reading. `end` resolves once
 * the last byte is handed to the kernel ('finish') or the client left; `abort` closes the
 * connection (the service's idle deadline: a client that takes nothing keeps nothing).
 */
export function responseSink(res: Response, contentType: string): ExportSink {
  let open = true;
  res.once('close', () => (open = false));
  // One pair of listeners a wait, both removed after: a race against one promise of the close
  // would leave a reaction on it per write until the response ends (thousands in an export).
  const drainedOrClosed = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.once('drain', done);
      res.once('close', done);
    });
  return {
    start() {
      res.status(200);
      res.setHeader('Content-Type', `${contentType}; charset=utf-8`);
      res.setHeader('Cache-Control', 'no-store');
      // Tells a proxy not to hold the stream back (nginx buffers responses by default).
      res.setHeader('X-Accel-Buffering', 'no');
      res.flushHeaders();
    },
    async write(chunk) {
      // HEAD: the headers are the answer; reading on would send nothing.
      if (!open || res.req.method === 'HEAD') return false;
      if (!res.write(chunk)) await drainedOrClosed();
      return open;
    },
    end() {
      if (!open || res.writableFinished) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          res.off('finish', done);
          res.off('close', done);
          resolve();
        };
        res.once('finish', done);
        res.once('close', done);
        res.end();
      });
    },
    abort() {
      // A reset, not a close: a close would leave the unsent bytes to the kernel, which keeps the
      // connection (and its buffer) for as long as the client's window stays shut.
      res.socket?.resetAndDestroy();
      res.destroy();
    },
  };
}

export function gameExportRoutes({ exports, ctx }: Services): Route[] {
  return [
    route({
      method: 'get',
      path: '/users/:id/games/export',
      operationId: 'exportUserGames',
      ids: { id: 'USER_NOT_FOUND' },
      envelope: 'raw',
      contentType: PGN_TYPE,
      alternatives: { [NDJSON_TYPE]: GameDetail.meta({ description: 'one game detail (as GET /games/{id}) per line' }) },
      summary: 'Export the finished games of a user, newest first: PGN (the default) or NDJSON by Accept, streamed',
      description:
        '`Accept: application/x-chess-pgn` (the default, also for `*/*` or no Accept) answers each game as `GET /games/{id}/pgn` ' +
        'with the same options does, games separated by a blank line; `Accept: application/x-ndjson` answers one game detail ' +
        '(`GET /games/{id}`\'s `data`) per line. The games leave as they are read, in batches; a client that reads slowly slows ' +
        'the reading down, and closing the connection stops it; a client that takes nothing for `EXPORT_IDLE_SECONDS` (30) is ' +
        'hung up on. One export at a time per caller (the user with a token, else the client address), at most ' +
        '`EXPORTS_PER_ADDRESS` (1) at once from one address and `EXPORTS_PER_NODE` (2) on a node: past any of them the export ' +
        'is **429** `EXPORT_IN_PROGRESS` with `Retry-After`. Public: a token changes only who the caller is.',
      tags: ['Games'],
      scope: 'public',
      auth: 'optional',
      query: ExportQuery,
      errors: ['USER_NOT_FOUND', 'EXPORT_IN_PROGRESS'],
      handler: async ({ req, res, params, query, user }) => {
        const format: ExportFormat = req.accepts([PGN_TYPE, NDJSON_TYPE]) === NDJSON_TYPE ? 'ndjson' : 'pgn';
        const sink = responseSink(res, format === 'ndjson' ? NDJSON_TYPE : PGN_TYPE);
        try {
          const ended = await exports.exportGames({ caller: limitKey(user, req.ip), address: req.ip ?? 'unknown' }, params.id, query, format, sink);
          if (ended === 'idle') ctx.log.info({ userId: params.id, ip: req.ip }, 'game export ended: its client took nothing for the idle deadline');
        } catch (error) {
          // Before the stream starts, the error is an answer; after, the client can only see the stream break.
          if (!res.headersSent) throw error;
          ctx.log.error({ err: error, userId: params.id }, 'game export failed mid-stream');
          res.destroy();
        }
        return STREAMED;
      },
    }),
  ];
}
