// GET /users/{id}/games/export (DESIGN 2.12): a user's finished games, newest first, as PGN or
// NDJSON, read in batches and handed to the caller's sink one batch at a time. One batch is read
// ahead while the sink takes the last, no more (a slow client slows the reading), and a sink that
// says the client has gone stops it. Memory holds two batches, whatever the number of games.
import { normalizeUsername } from '../auth/rules.ts';
import type { AppContext } from '../context.ts';
import { findExportBatch, findUserIdByUsername, userExists, type ExportCursor, type ExportFilter, type ExportedGame } from '../db/gameExport.ts';
import type { Color } from '../domain/game.ts';
import type { GameAnalysis } from '../domain/gameAnalysis.ts';
import { loadOpeningBook, type OpeningBook } from '../domain/openings.ts';
import type { TimeControl } from '../domain/timeControl.ts';
import { AppError } from '../errors.ts';
import { withTimeout } from '../time.ts';
import { bind } from './bind.ts';
import { createExportSlots, type ExportRefusal, type ExportSlots } from './exportSlots.ts';
import type { PgnOptions } from './gameReads.ts';
import { formatGameDetail, formatGamePgn, type DetailInput, type GameDetail } from './gameViews.ts';

/** Games per query: large enough that the round trips cost little, small enough to stay flat. */
export const EXPORT_BATCH = 50;

/**
 * Characters handed to the sink at once: enough that a socket write carries many games, few
 * enough that the text is an ordinary young object (V8 puts one of 128 KB or more, as 64K
 * two-byte characters are, straight into the old generation, which only a full collection frees).
 */
export const EXPORT_CHUNK = 32 * 1024;

export const EXPORT_FORMATS = ['pgn', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export type ExportQuery = PgnOptions & {
  /** ms since the epoch: games that ended at or after. */
  since?: number;
  /** ms since the epoch: games that ended before. */
  until?: number;
  max?: number;
  rated?: boolean;
  time_control?: TimeControl;
  /** Any of these categories (Lichess's `perfType` names several); with `time_control`, both apply. */
  time_controls?: TimeControl[];
  color?: Color;
  /** The opponent's username. */
  vs?: string;
};

/**
 * Where the batches go: `start` once the export is accepted, then each batch (`write` resolves
 * once the client has taken it: false means the client left), then `end` (resolves once the
 * client has all of it, or left). `abort` hangs up on a client that took nothing for the idle
 * deadline: its connection goes, and `write` and `end` resolve.
 */
export type ExportSink = { start(): void; write(chunk: string): Promise<boolean>; end(): Promise<void>; abort(): void };

/**
 * How another surface spells an NDJSON line (Lichess's game export, src/lichess): the object the
 * line carries, made of the game's detail; the detail itself when none is given.
 */
export type ExportLine = (game: GameDetail) => unknown;

/** How an export ended once started: every game sent, the client gone, or the client taking nothing for the idle deadline. */
export type ExportEnd = 'complete' | 'client_gone' | 'idle';

/** Who starts an export: `caller` keys its one export at a time (the user, else the address), `address` the client's. */
export type ExportCaller = { caller: string; address: string };

/**
 * `waiting`: exports whose client has not taken the last batch yet (the socket's buffer is full);
 * `reading`: batches being read now; `idle`: exports ended by the idle deadline; `refused`: exports
 * refused by a limit (the caller's, the address's or the node's).
 */
export type ExportStats = { batches: number; games: number; active: number; waiting: number; reading: number; idle: number; refused: number };

/** Why a limit refused an export, and when to try again (seconds: a caller's own export ends sooner than it makes sense to poll a busy node). */
function refusal(limit: ExportRefusal, config: Pick<AppContext['config'], 'exportsPerNode' | 'exportsPerAddress'>): AppError {
  switch (limit) {
    case 'caller':
      return new AppError('EXPORT_IN_PROGRESS', 'One export at a time: wait for the running one to end', undefined, { retryAfter: 1 });
    case 'address':
      return new AppError('EXPORT_IN_PROGRESS', `At most ${config.exportsPerAddress} exports at once from one address: wait for one to end`, undefined, { retryAfter: 5 });
    case 'node':
      return new AppError('EXPORT_IN_PROGRESS', `The server runs ${config.exportsPerNode} exports at once, the most it may: retry shortly`, undefined, { retryAfter: 5 });
  }
}

/** What the export works with: the context's parts, this node's slots and its figures. */
export type GameExportsDeps = Pick<AppContext, 'pool' | 'config' | 'clock'> & { slots: ExportSlots; stats: ExportStats };

const IDLE = Symbol('idle');

/**
 * `step` (a write, the end) within the idle deadline: a client that takes nothing for
 * EXPORT_IDLE_SECONDS would hold its slot, a connection and a socket buffer forever otherwise.
 */
const withinIdle = <T>(d: GameExportsDeps, step: Promise<T>): Promise<T | typeof IDLE> => withTimeout(step, d.config.exportIdleMs, () => IDLE, d.clock);

let book: OpeningBook | undefined;

/** One game as the export writes it: the PGN of GET /games/{id}/pgn, or the detail of GET /games/{id}. */
function formatGame(d: GameExportsDeps, row: ExportedGame, format: ExportFormat, q: PgnOptions, now: number, line?: ExportLine): string {
  if (format === 'ndjson') {
    const moves = row.sans.map((san, i) => ({ ply: i + 1, san, clockMs: row.clocks[i] }));
    const input: DetailInput = { game: row.game, moves, drawOffer: undefined, rematch: row.rematch };
    const detail = formatGameDetail(input, { publicUrl: d.config.publicUrl, now });
    return `${JSON.stringify(line ? line(detail) : detail)}\n`;
  }
  const pgn = formatGamePgn(row, d.config.publicUrl, {
    clocks: q.clocks,
    analysis: q.evals ? (row.analysis as GameAnalysis | null) : null,
    opening: q.opening ? (book ??= loadOpeningBook()).classifySans(row.sans) : null,
  });
  return `${pgn}\n`;
}

/**
 * Streams the games of `userId` into `sink`, then ends it. `who.caller` keys the
 * one-export-at-a-time slot (the rate limiter's key: the user, else the client address),
 * `who.address` the address's share of the node's exports. Throws USER_NOT_FOUND or
 * EXPORT_IN_PROGRESS before `start`; after it, a failure is the sink's to report. A write or the
 * end the client does not take within EXPORT_IDLE_SECONDS aborts the sink and frees the slot.
 * `line` spells each NDJSON line another surface's way (the detail by default).
 */
export async function exportGames(
  d: GameExportsDeps,
  who: ExportCaller,
  userId: string,
  q: ExportQuery,
  format: ExportFormat,
  sink: ExportSink,
  line?: ExportLine,
): Promise<ExportEnd> {
  const { stats } = d;
  if (!(await userExists(d.pool, userId))) throw new AppError('USER_NOT_FOUND', 'User not found');
  const opponentId = q.vs === undefined ? undefined : await findUserIdByUsername(d.pool, normalizeUsername(q.vs));
  const slot = await d.slots.take(who.caller, who.address);
  if ('refused' in slot) {
    stats.refused++;
    throw refusal(slot.refused, d.config);
  }
  stats.active++;
  try {
    sink.start();
    // A `vs` naming nobody matches no game.
    const sent = q.vs !== undefined && !opponentId ? 'complete' : await stream(d, userId, q, format, sink, opponentId, line);
    if (sent === 'idle' || (await withinIdle(d, sink.end())) === IDLE) {
      stats.idle++;
      sink.abort();
      return 'idle';
    }
    return sent;
  } finally {
    stats.active--;
    await slot.release();
  }
}

/** Writes the games into the sink, batch after batch, until the last, or the client leaves or takes nothing. */
async function stream(
  d: GameExportsDeps,
  userId: string,
  q: ExportQuery,
  format: ExportFormat,
  sink: ExportSink,
  opponentId: string | undefined,
  line: ExportLine | undefined,
): Promise<ExportEnd> {
  const { stats } = d;
  const filter: ExportFilter = {
    userId,
    since: q.since === undefined ? undefined : new Date(q.since),
    until: q.until === undefined ? undefined : new Date(q.until),
    rated: q.rated,
    timeControl: q.time_control,
    timeControls: q.time_controls,
    color: q.color,
    opponentId,
    withAnalysis: format === 'pgn' && q.evals,
  };
  let left = q.max ?? Number.POSITIVE_INFINITY;
  const read = (after: ExportCursor | undefined) => {
    const limit = Math.min(EXPORT_BATCH, left);
    stats.reading++;
    return findExportBatch(d.pool, filter, after, limit).then(
      (rows) => {
        stats.reading--;
        stats.batches++;
        return { rows, limit };
      },
      (error: unknown) => {
        stats.reading--;
        throw error;
      },
    );
  };
  let next: ReturnType<typeof read> | undefined = read(undefined);
  try {
    while (next) {
      const { rows, limit } = await next;
      next = undefined;
      if (rows.length === 0) return 'complete';
      left -= rows.length;
      // The next batch is read while this one is formatted and written (the database and this
      // process work at once), and no further: memory holds two batches at most.
      if (rows.length === limit && left > 0) next = read(rows[rows.length - 1].cursor);
      const now = d.clock.now();
      let chunk = '';
      // Each game leaves the batch as it is formatted: what the collector finds alive at its
      // next pass is what it moves to the old generation, which only a full collection empties.
      for (let row = rows.shift(); row; row = rows.shift()) {
        chunk += formatGame(d, row, format, q, now, line);
        stats.games++;
        if (chunk.length < EXPORT_CHUNK && rows.length > 0) continue;
        stats.waiting++;
        const taken = await withinIdle(d, sink.write(chunk)).finally(() => stats.waiting--);
        if (taken === IDLE) return 'idle';
        if (!taken) return 'client_gone';
        chunk = '';
      }
    }
    return 'complete';
  } finally {
    // Gone or failed with a batch still being read: it ends on its own; nobody waits for it.
    next?.catch(() => {});
  }
}

export type GameExports = ReturnType<typeof createGameExports>;

export function createGameExports(ctx: Pick<AppContext, 'pool' | 'config' | 'clock' | 'redis'>) {
  const d: GameExportsDeps = {
    pool: ctx.pool,
    config: ctx.config,
    clock: ctx.clock,
    slots: createExportSlots(ctx.redis, { perNode: ctx.config.exportsPerNode, perAddress: ctx.config.exportsPerAddress }, ctx.clock),
    stats: { batches: 0, games: 0, active: 0, waiting: 0, reading: 0, idle: 0, refused: 0 },
  };
  return { ...bind(d, { exportGames }), stats: d.stats };
}
