// The games list and search (GET /v1/games): the filters' WHERE, the page chosen in the list
// indexes, and the total, kept (migration 015) or counted.
import { LIST_STATUSES } from '../domain/game.ts';
import { WITH_PLAYERS_COLUMNS, WITH_PLAYERS_FROM, withPlayers, type GameRecord, type GameWithPlayers } from './gameRecords.ts';
import { foldActiveTails, LAST_CHANGE_SQL } from './liveTail.ts';
import type { Queryable } from './pool.ts';

export const LIST_SORT_FIELDS = ['created_at', 'updated_at'] as const;

export type GameListFilter = {
  /** Who asks: status `pending` lists only the viewer's own pending games. */
  viewerId: string;
  status?: (typeof LIST_STATUSES)[number];
  playerId?: string;
  timeControl?: GameRecord['timeControl'];
  result?: NonNullable<GameRecord['result']>;
  tournamentId?: string;
  /** Username substring of either player, case-insensitive, taken literally. */
  search?: string;
  /** The viewer's active games where it is (true) or is not (false) the viewer's turn. */
  myTurn?: boolean;
};

export type GameListOrder = { field: (typeof LIST_SORT_FIELDS)[number]; direction: 'asc' | 'desc' };

/** `%`, `_` and the escape character itself match literally. */
export const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

function listWhere(f: GameListFilter): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  const where: string[] = [];
  if (f.status === 'pending') {
    // Only the viewer's own, and not past the deadline the sweeper is about to act on. Every
    // pending game seats its creator (a challenge both players, a seek its seeker), so being
    // seated covers sent and received challenges and one's own seeks.
    const viewer = p(f.viewerId);
    where.push(`g.status = 'pending'`, `g.expires_at > now()`, `(g.white_id = ${viewer} OR g.black_id = ${viewer})`);
  } else {
    // Any other listing leaves pending games out; every list index is partial on this predicate.
    where.push(`g.status <> 'pending'`);
    if (f.status) where.push(`g.status = ${p(f.status)}`);
  }
  if (f.playerId) {
    const id = p(f.playerId);
    where.push(`(g.white_id = ${id} OR g.black_id = ${id})`);
  }
  if (f.myTurn !== undefined) {
    // The side to move follows the moves, which may be ahead of the row's snapshot (migration
    // 017; a correspondence game's snapshot never lags): the moves after it are counted.
    const viewer = p(f.viewerId);
    const whiteToMove = `(g.move_count + (SELECT count(*) FROM game_moves m WHERE m.game_id = g.id AND m.ply > g.move_count)) % 2 = 0`;
    const mover = `CASE WHEN ${whiteToMove} THEN g.white_id ELSE g.black_id END`;
    where.push(`g.status = 'active'`, `(g.white_id = ${viewer} OR g.black_id = ${viewer})`, `${mover} ${f.myTurn ? '=' : '<>'} ${viewer}`);
  }
  if (f.timeControl) where.push(`g.time_control = ${p(f.timeControl)}`);
  if (f.result) where.push(`g.result = ${p(f.result)}`);
  if (f.tournamentId) where.push(`g.tournament_id = ${p(f.tournamentId)}`);
  if (f.search) {
    // Matching users first (few, and indexed by trigram when pg_trgm exists), then their games.
    const pattern = p(likeContains(f.search));
    where.push(
      `(g.white_id IN (SELECT id FROM users WHERE username ILIKE ${pattern})
        OR g.black_id IN (SELECT id FROM users WHERE username ILIKE ${pattern}))`,
    );
  }
  return { sql: where.join(' AND '), params };
}

/**
 * One page of games with their players, and the number of games matching: pending ones only
 * when asked for (the viewer's own), else every other status.
 * The count runs on `games` alone; it is skipped when the page itself tells the total.
 */
export async function listGames(
  db: Queryable,
  filter: GameListFilter,
  order: GameListOrder,
  page: { limit: number; offset: number },
): Promise<{ games: GameWithPlayers[]; total: number }> {
  const where = listWhere(filter);
  const n = where.params.length;
  const params = [...where.params, page.limit, page.offset];
  // A kept total costs less than a round trip: it comes with the page, on every row.
  const kept = hasKeptTotal(filter) ? `, (${keptTotal(filter, params)}) AS list_total` : '';
  const { pageSql, orderBy } = pageQuery(filter, where.sql, order, `$${n + 1}`, `$${n + 2}`);
  const { rows } = await db.query(
    `WITH page AS MATERIALIZED (${pageSql})
     SELECT ${WITH_PLAYERS_COLUMNS}${kept} ${WITH_PLAYERS_FROM} WHERE g.id IN (SELECT id FROM page) ${orderBy}`,
    params,
  );
  const listTotal = rows[0]?.list_total as number | undefined;
  const games = await foldActiveTails(db, rows.map(({ list_total: _total, ...row }) => withPlayers(row)));
  if (games.length > 0 && games.length < page.limit) return { games, total: page.offset + games.length };
  if (games.length === 0 && page.offset === 0) return { games, total: 0 };
  return { games, total: listTotal ?? (await countGames(db, filter, where)) };
}

/**
 * The statement choosing a list's page (ids only) and the order of the page's rows. The page is
 * chosen in the list indexes, which hold every filtered column (migration 015): rows skipped by a
 * filter or an offset are never read from the table, only the page's own.
 */
function pageQuery(
  filter: GameListFilter,
  where: string,
  order: GameListOrder,
  limit: string,
  offset: string,
): { pageSql: string; orderBy: string } {
  const dir = order.direction === 'asc' ? 'ASC' : 'DESC';
  // The tie-breaker runs opposite to the time column, matching the (time DESC, id) indexes
  // whichever way they are scanned.
  const tie = order.direction === 'asc' ? 'DESC' : 'ASC';
  const orderBy = `ORDER BY g.${order.field} ${dir}, g.id ${tie}`;
  if (order.field === 'created_at' || (filter.status !== undefined && filter.status !== 'active')) {
    return { pageSql: `SELECT g.id FROM games g WHERE ${where} ${orderBy} LIMIT ${limit} OFFSET ${offset}`, orderBy };
  }
  // An active game's last change is its last move, which the row's updated_at does not follow
  // (migrations 016 and 017: a move writes last_move_at, or only its own row): the active games
  // (a few thousand at most) are ordered by the latest of these, the others in the index, and the
  // page is taken from both.
  const changed = LAST_CHANGE_SQL;
  const upTo = `LIMIT ${limit}::int + ${offset}::int`;
  const active = `SELECT g.id, ${changed} AS t FROM games g WHERE ${where} AND g.status = 'active' ORDER BY t ${dir}, g.id ${tie}`;
  const others = `SELECT g.id, g.updated_at AS t FROM games g WHERE ${where} AND g.status <> 'active'
                   ORDER BY g.updated_at ${dir}, g.id ${tie} ${upTo}`;
  const both = filter.status === 'active' ? active : `(${active} ${upTo}) UNION ALL (${others})`;
  return {
    pageSql: `SELECT id FROM (${both}) listed ORDER BY t ${dir}, id ${tie} LIMIT ${limit} OFFSET ${offset}`,
    orderBy: `ORDER BY ${changed} ${dir}, g.id ${tie}`,
  };
}

/**
 * A list without a player, a search or a tournament (nor the viewer's pending games) has its
 * total kept (migration 015); a tournament's games are counted in their own index.
 */
const hasKeptTotal = (f: GameListFilter) => f.status !== 'pending' && !f.playerId && !f.search && !f.tournamentId && f.myTurn === undefined;

/** The kept total of such a list: a sum of a few rows; its parameters are appended to `params`. */
function keptTotal(filter: GameListFilter, params: unknown[]): string {
  const p = (value: unknown) => `$${params.push(value)}`;
  const conditions = [
    ...(filter.status ? [`status = ${p(filter.status)}`] : []),
    ...(filter.timeControl ? [`time_control = ${p(filter.timeControl)}`] : []),
    ...(filter.result ? [`result = ${p(filter.result)}`] : []),
  ];
  const w = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
  return `SELECT COALESCE(sum(n), 0)::bigint FROM (SELECT n FROM game_list_counts ${w} UNION ALL SELECT n FROM game_list_count_deltas ${w}) counted`;
}

/**
 * How many games a list matches. Without a player or a search, the kept totals answer (a sum of
 * a few rows, migration 015); with one, the games of the player (or of the players the search
 * matches) are counted in two covering indexes; the viewer's pending games are counted as they are.
 */
async function countGames(db: Queryable, filter: GameListFilter, where: { sql: string; params: unknown[] }): Promise<number> {
  if (hasKeptTotal(filter)) {
    const params: unknown[] = [];
    const { rows } = await db.query(`SELECT (${keptTotal(filter, params)}) AS total`, params);
    return rows[0].total as number;
  }
  if (filter.status === 'pending' || filter.myTurn !== undefined || (filter.tournamentId && !filter.playerId && !filter.search)) {
    // The viewer's own pending or active games: a handful; a tournament's games: in games_tournament_idx.
    const count = await db.query(`SELECT count(*) AS total FROM games g WHERE ${where.sql}`, where.params);
    return count.rows[0].total as number;
  }
  // The players' games: those they play White, then those they play Black against someone else
  // (a game between two of them counts once), each half in its covering index (games_white_idx,
  // games_black_idx, migration 015) alone; the players are looked up once.
  const params: unknown[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  const players = filter.playerId
    ? `SELECT ${p(filter.playerId)}::uuid AS id`
    : `SELECT id FROM users WHERE username ILIKE ${p(likeContains(filter.search!))}`;
  const others = [
    `g.status <> 'pending'`,
    ...(filter.status ? [`g.status = ${p(filter.status)}`] : []),
    ...(filter.timeControl ? [`g.time_control = ${p(filter.timeControl)}`] : []),
    ...(filter.result ? [`g.result = ${p(filter.result)}`] : []),
    ...(filter.tournamentId ? [`g.tournament_id = ${p(filter.tournamentId)}`] : []),
    // A player and a search together: the player's games against a matching opponent, or all of
    // them when the player matches the search.
    ...(filter.playerId && filter.search
      ? [`(g.white_id IN (SELECT id FROM users WHERE username ILIKE ${p(likeContains(filter.search))})
           OR g.black_id IN (SELECT id FROM users WHERE username ILIKE $${params.length}))`]
      : []),
  ].join(' AND ');
  const { rows } = await db.query(
    `WITH players AS MATERIALIZED (${players})
     SELECT (SELECT count(*) FROM games g WHERE g.white_id IN (SELECT id FROM players) AND ${others})
          + (SELECT count(*) FROM games g WHERE g.black_id IN (SELECT id FROM players)
               AND g.white_id NOT IN (SELECT id FROM players) AND ${others}) AS total`,
    params,
  );
  return rows[0].total as number;
}

/** Folds the deltas of the kept list totals into them (the sweeper, every node, every second). */
export async function foldGameListCounts(db: Queryable): Promise<void> {
  // Concurrent folds on two nodes each take the deltas the other has not deleted: none twice.
  await db.query(
    `WITH moved AS (DELETE FROM game_list_count_deltas RETURNING status, time_control, result, n)
     INSERT INTO game_list_counts (status, time_control, result, n)
     SELECT status, time_control, result, sum(n) FROM moved GROUP BY 1, 2, 3
     ON CONFLICT (status, time_control, result) DO UPDATE SET n = game_list_counts.n + excluded.n`,
  );
}
