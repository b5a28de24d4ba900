import type { ArenaRecord } from '../domain/arena.ts';
import type { TournamentStatus } from '../domain/statuses.ts';
import type { LiveTimeControl } from '../domain/timeControl.ts';
import type { Queryable } from './pool.ts';

// Tournaments (migration 013): what REST reads and changes. The actor's SQL (lease, pairing,
// counting) is in ./tournamentPlay.ts.


export type TournamentRecord = {
  id: string;
  name: string;
  creatorId: string;
  creatorUsername: string;
  timeControl: LiveTimeControl;
  initialTime: number;
  increment: number;
  rated: boolean;
  startsAt: Date;
  endsAt: Date;
  maxPlayers: number | null;
  status: TournamentStatus;
  playerCount: number;
  /** Rows in the standings: every player who joined, withdrawn ones included. */
  standingsTotal: number;
  /** The viewer is joined and not withdrawn (false without a viewer). */
  joined: boolean;
  createdAt: Date;
};

/** What a player's row counts of their arena (the standings show it; scoring folds games into it). */
export type ArenaCounts = Omit<ArenaRecord, 'opponentRatingSum'>;

export type StandingRecord = {
  rank: number;
  userId: string;
  username: string;
  performance: number | null;
  withdrawn: boolean;
} & ArenaCounts;

/** The counts of a `tournament_players` row. */
export const toArenaCounts = (r: { score: number; games: number; wins: number; draws: number; losses: number; streak: number }): ArenaCounts => ({
  score: r.score,
  games: r.games,
  wins: r.wins,
  draws: r.draws,
  losses: r.losses,
  streak: r.streak,
});

/** The row as its writers lock it. */
export type TournamentRow = {
  id: string;
  status: TournamentStatus;
  startsAt: Date;
  endsAt: Date;
  maxPlayers: number | null;
  playerCount: number;
};

export const toTournamentRow = (r: any): TournamentRow => ({
  id: r.id,
  status: r.status,
  startsAt: r.starts_at,
  endsAt: r.ends_at,
  maxPlayers: r.max_players,
  playerCount: r.player_count,
});

const toTournament = (r: any): TournamentRecord => ({
  id: r.id,
  name: r.name,
  creatorId: r.creator_id,
  creatorUsername: r.creator_username,
  timeControl: r.time_control,
  initialTime: r.initial_time,
  increment: r.increment,
  rated: r.rated,
  startsAt: r.starts_at,
  endsAt: r.ends_at,
  maxPlayers: r.max_players,
  status: r.status,
  playerCount: r.player_count,
  standingsTotal: r.standings_total,
  joined: r.joined,
  createdAt: r.created_at,
});

/** Tournaments `t` as the viewer in $1 (uuid or null) sees them. */
const TOURNAMENT_VIEW = `
  SELECT t.id, t.name, t.creator_id, c.username AS creator_username, t.time_control, t.initial_time, t.increment,
         t.rated, t.starts_at, t.ends_at, t.max_players, t.status, t.player_count, t.created_at,
         (SELECT count(*)::int FROM tournament_players a WHERE a.tournament_id = t.id) AS standings_total,
         EXISTS (SELECT 1 FROM tournament_players m WHERE m.tournament_id = t.id AND m.user_id = $1::uuid AND NOT m.withdrawn) AS joined
    FROM tournaments t
    JOIN users c ON c.id = t.creator_id`;

export type NewTournament = Pick<
  TournamentRecord,
  'name' | 'creatorId' | 'timeControl' | 'initialTime' | 'increment' | 'rated' | 'startsAt' | 'endsAt' | 'maxPlayers' | 'createdAt'
>;

export async function insertTournament(db: Queryable, t: NewTournament): Promise<string> {
  const { rows } = await db.query(
    `INSERT INTO tournaments (name, creator_id, time_control, initial_time, increment, rated, starts_at, ends_at, max_players, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
    [t.name, t.creatorId, t.timeControl, t.initialTime, t.increment, t.rated, t.startsAt, t.endsAt, t.maxPlayers, t.createdAt],
  );
  return rows[0].id;
}

/**
 * Creates a tournament unless its creator already has `maxOpen` upcoming or running ones
 * (undefined then). The creator's row is locked first, so two creations at once cannot both
 * take the last place; NO KEY UPDATE leaves foreign-key checks against the row alone.
 */
export async function insertTournamentWithin(tx: Queryable, t: NewTournament, maxOpen: number): Promise<string | undefined> {
  await tx.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [t.creatorId]);
  const { rows } = await tx.query(`SELECT count(*)::int AS n FROM tournaments WHERE creator_id = $1 AND status <> 'finished'`, [t.creatorId]);
  if (rows[0].n >= maxOpen) return undefined;
  return insertTournament(tx, t);
}

export async function findTournament(db: Queryable, id: string, viewerId: string | null): Promise<TournamentRecord | undefined> {
  const { rows } = await db.query(`${TOURNAMENT_VIEW} WHERE t.id = $2`, [viewerId, id]);
  return rows[0] && toTournament(rows[0]);
}

/**
 * The tournament and its first `limit` standings, read in one statement, so from one snapshot:
 * `player_count` always agrees with the standings beside it (a withdrawal committed between two
 * reads once showed a count of 4 beside a withdrawn fourth player).
 */
export async function findTournamentWithStandings(
  db: Queryable,
  id: string,
  viewerId: string | null,
  limit: number,
): Promise<{ tournament: TournamentRecord; standings: StandingRecord[] } | undefined> {
  const { rows } = await db.query(
    `SELECT v.*,
            (SELECT ${STANDINGS_JSON} FROM (${STANDINGS} WHERE p.tournament_id = v.id ORDER BY ${STANDINGS_ORDER} LIMIT $3) s) AS standings
       FROM (${TOURNAMENT_VIEW} WHERE t.id = $2) v`,
    [viewerId, id, limit],
  );
  if (!rows[0]) return undefined;
  return { tournament: toTournament(rows[0]), standings: toStandings(rows[0].standings, 0) };
}

export async function tournamentExists(db: Queryable, id: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM tournaments WHERE id = $1', [id]);
  return rows.length > 0;
}

export type TournamentOrder = { field: 'starts_at' | 'ends_at' | 'created_at'; direction: 'asc' | 'desc' };

/** One page of the tournaments with `status`, and how many there are. */
export async function listTournaments(
  db: Queryable,
  viewerId: string | null,
  status: TournamentStatus,
  order: TournamentOrder,
  page: { limit: number; offset: number },
): Promise<{ tournaments: TournamentRecord[]; total: number }> {
  const dir = order.direction === 'asc' ? 'ASC' : 'DESC';
  const [found, counted] = await Promise.all([
    db.query(`${TOURNAMENT_VIEW} WHERE t.status = $2 ORDER BY t.${order.field} ${dir}, t.id ${dir} LIMIT $3 OFFSET $4`, [
      viewerId,
      status,
      page.limit,
      page.offset,
    ]),
    db.query('SELECT count(*)::int AS total FROM tournaments WHERE status = $1', [status]),
  ]);
  return { tournaments: found.rows.map(toTournament), total: counted.rows[0].total };
}

/**
 * Locks the tournament for a change of its players (join, withdraw) or of its state (the actor's
 * writes take the same lock, fenced by their epoch): they queue up per tournament.
 */
export async function lockTournament(tx: Queryable, id: string): Promise<TournamentRow | undefined> {
  const { rows } = await tx.query(
    'SELECT id, status, starts_at, ends_at, max_players, player_count FROM tournaments WHERE id = $1 FOR NO KEY UPDATE',
    [id],
  );
  return rows[0] && toTournamentRow(rows[0]);
}

/** The user's place in the tournament: absent, joined, or withdrawn. */
export async function findEntry(db: Queryable, tournamentId: string, userId: string): Promise<{ withdrawn: boolean } | undefined> {
  const { rows } = await db.query('SELECT withdrawn FROM tournament_players WHERE tournament_id = $1 AND user_id = $2', [
    tournamentId,
    userId,
  ]);
  return rows[0] && { withdrawn: rows[0].withdrawn };
}

/**
 * A new player, or a withdrawn one back (their points kept, their join time too); counted in
 * `player_count`. They wait for a game from `now`.
 */
export async function enterPlayer(tx: Queryable, tournamentId: string, userId: string, now: Date): Promise<void> {
  await tx.query(
    `INSERT INTO tournament_players (tournament_id, user_id, joined_at, waiting_since) VALUES ($1, $2, $3, $3)
     ON CONFLICT (tournament_id, user_id) DO UPDATE SET withdrawn = false, waiting_since = excluded.waiting_since`,
    [tournamentId, userId, now],
  );
  await tx.query('UPDATE tournaments SET player_count = player_count + 1 WHERE id = $1', [tournamentId]);
}

/** Withdraws a joined player: before the start the row goes entirely, after it only `withdrawn` is set. */
export async function withdrawPlayer(tx: Queryable, tournamentId: string, userId: string, remove: boolean): Promise<void> {
  await tx.query(
    remove
      ? 'DELETE FROM tournament_players WHERE tournament_id = $1 AND user_id = $2'
      : 'UPDATE tournament_players SET withdrawn = true WHERE tournament_id = $1 AND user_id = $2',
    [tournamentId, userId],
  );
  await tx.query('UPDATE tournaments SET player_count = player_count - 1 WHERE id = $1', [tournamentId]);
}

const STANDINGS_ORDER = 'p.score DESC, p.performance DESC NULLS LAST, p.joined_at, p.user_id';

const toStanding = (r: any, rank: number): StandingRecord => ({
  rank,
  userId: r.user_id,
  username: r.username,
  ...toArenaCounts(r),
  performance: r.performance,
  withdrawn: r.withdrawn,
});

/** Standings rows (`joined_at` for the order only), for a subquery aggregated in STANDINGS_ORDER by STANDINGS_JSON. */
const STANDINGS = `SELECT p.user_id, u.username, p.score, p.games, p.wins, p.draws, p.losses, p.streak, p.performance, p.withdrawn, p.joined_at
       FROM tournament_players p JOIN users u ON u.id = p.user_id`;
/** The rows of subquery `s` as one JSON array in standings order (an aggregate keeps no order of its own). */
const STANDINGS_JSON = `coalesce(json_agg(s ORDER BY ${STANDINGS_ORDER.replaceAll('p.', 's.')}), '[]')`;

/** A page of standings from its JSON rows, ranked from `offset` + 1. */
const toStandings = (rows: unknown[], offset: number): StandingRecord[] => rows.map((r, i) => toStanding(r, offset + i + 1));

/**
 * One page of the standings and how many there are, in one statement (one snapshot: the total
 * agrees with the page); undefined for an unknown tournament.
 */
export async function findStandingsPage(
  db: Queryable,
  tournamentId: string,
  page: { limit: number; offset: number },
): Promise<{ standings: StandingRecord[]; total: number } | undefined> {
  const { rows } = await db.query(
    `SELECT (SELECT count(*)::int FROM tournament_players a WHERE a.tournament_id = t.id) AS total,
            (SELECT ${STANDINGS_JSON} FROM (${STANDINGS} WHERE p.tournament_id = t.id ORDER BY ${STANDINGS_ORDER} LIMIT $2 OFFSET $3) s) AS standings
       FROM tournaments t WHERE t.id = $1`,
    [tournamentId, page.limit, page.offset],
  );
  if (!rows[0]) return undefined;
  return { total: rows[0].total, standings: toStandings(rows[0].standings, page.offset) };
}
