// The export of a player's finished games (DESIGN 2.12): batches newest first, each after the last
// game of the one before (keyset pagination on (finished_at, id)), so no transaction or
// connection is held between batches however slowly the client reads.
import type { Color } from '../domain/game.ts';
import type { TimeControl } from '../domain/timeControl.ts';
import { withPlayers, type GameWithPlayers, type RematchRecord } from './gameRecords.ts';
import { GAME_COLUMNS, parseRematch } from './games.ts';
import { PLAYER_COLUMNS } from './gameRecords.ts';
import type { Queryable } from './pool.ts';

export type ExportFilter = {
  userId: string;
  /** Games that ended at or after this instant. */
  since?: Date;
  /** Games that ended before this instant. */
  until?: Date;
  rated?: boolean;
  timeControl?: TimeControl;
  /** Any of these categories. */
  timeControls?: TimeControl[];
  /** The colour the user played. */
  color?: Color;
  opponentId?: string;
  /** Read each game's analysis result too (when done). */
  withAnalysis: boolean;
};

/** Where the next batch starts: after this game. `endedAt` is PostgreSQL's text, exact to the microsecond. */
export type ExportCursor = { endedAt: string; id: string };

export type ExportedGame = {
  game: GameWithPlayers;
  /** The SAN of each ply in order (plies are 1…n: a takeback removes moves from the end). */
  sans: string[];
  /** The mover's clock after each ply, ms. */
  clocks: number[];
  rematch: RematchRecord | undefined;
  /** The analysis result (GameAnalysis) when asked for and done, else null. */
  analysis: unknown;
  cursor: ExportCursor;
};

/** The user's id by username, given in its lookup form (auth/rules.ts `normalizeUsername`), if there is one. */
export async function findUserIdByUsername(db: Queryable, usernameKey: string): Promise<string | undefined> {
  const { rows } = await db.query('SELECT id FROM users WHERE lower(username) = $1', [usernameKey]);
  return rows[0]?.id;
}

export async function userExists(db: Queryable, id: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM users WHERE id = $1', [id]);
  return rows.length > 0;
}

/** Up to `limit` finished games of the filter, newest end first, after `after`. */
export async function findExportBatch(db: Queryable, f: ExportFilter, after: ExportCursor | undefined, limit: number): Promise<ExportedGame[]> {
  const values: unknown[] = [f.userId, limit];
  const param = (value: unknown) => `$${values.push(value)}`;
  const common: string[] = ["status = 'finished'"];
  if (f.since) common.push(`finished_at >= ${param(f.since)}`);
  if (f.until) common.push(`finished_at < ${param(f.until)}`);
  if (f.rated !== undefined) common.push(`rated = ${param(f.rated)}`);
  if (f.timeControl) common.push(`time_control = ${param(f.timeControl)}`);
  if (f.timeControls) common.push(`time_control = ANY(${param(f.timeControls)}::text[])`);
  if (after) common.push(`(finished_at, id) < (${param(after.endedAt)}::timestamptz, ${param(after.id)}::uuid)`);
  const opponent = f.opponentId ? param(f.opponentId) : undefined;
  // One ordered range scan per colour (games_white_export_idx, games_black_export_idx), merged:
  // an OR of the two would read every game of the user and sort them, each batch.
  const side = (color: Color) => {
    const [own, other] = color === 'white' ? ['white_id', 'black_id'] : ['black_id', 'white_id'];
    const where = [`${own} = $1`, ...common, ...(opponent ? [`${other} = ${opponent}`] : [])];
    return `(SELECT id, finished_at FROM games WHERE ${where.join(' AND ')} ORDER BY finished_at DESC, id DESC LIMIT $2)`;
  };
  const sides = (f.color ? [f.color] : (['white', 'black'] as const)).map(side);
  const { rows } = await db.query(
    `SELECT ${GAME_COLUMNS}, ${PLAYER_COLUMNS('w')}, ${PLAYER_COLUMNS('b')}, k.finished_at::text AS export_cursor,
            -- "san clock san clock …" in ply order: one string a game, cheaper to build and to read than JSON.
            (SELECT string_agg(m.san || ' ' || m.clock_ms, ' ' ORDER BY m.ply)
               FROM game_moves m WHERE m.game_id = g.id) AS export_moves,
            (SELECT json_build_array(r.id, r.created_by, r.status, r.abort_reason, r.expires_at) FROM games r
              WHERE r.rematch_of = g.id) AS export_rematch,
            ${f.withAnalysis ? `(SELECT a.result FROM game_analyses a WHERE a.game_id = g.id AND a.status = 'done')` : 'NULL'} AS export_analysis
       FROM (SELECT * FROM (${sides.join(' UNION ALL ')}) u ORDER BY finished_at DESC, id DESC LIMIT $2) k
       JOIN games g ON g.id = k.id
       LEFT JOIN users w ON w.id = g.white_id LEFT JOIN users b ON b.id = g.black_id
      ORDER BY k.finished_at DESC, k.id DESC`,
    values,
  );
  return rows.map((row) => {
    const { export_cursor, export_moves, export_rematch, export_analysis, ...game } = row;
    return {
      game: withPlayers(game),
      ...parseMoves((export_moves as string | null) ?? ''),
      rematch: parseRematch(export_rematch),
      analysis: export_analysis ?? null,
      cursor: { endedAt: export_cursor as string, id: game.id as string },
    };
  });
}

/**
 * "san clock san clock …" → the SANs and the clocks. The digits are read in place: a clock is a
 * small integer, so the only strings made are the SANs (an export's memory is its garbage).
 */
export function parseMoves(text: string): { sans: string[]; clocks: number[] } {
  const sans: string[] = [];
  const clocks: number[] = [];
  let i = 0;
  while (i < text.length) {
    const space = text.indexOf(' ', i);
    sans.push(text.slice(i, space));
    i = space + 1;
    const negative = text.charCodeAt(i) === 45; // '-'
    if (negative) i++;
    let clock = 0;
    for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) clock = clock * 10 + (c - 48);
    clocks.push(negative ? -clock : clock);
    i++; // the space before the next SAN
  }
  return { sans, clocks };
}
