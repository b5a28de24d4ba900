import { didNotMove, type ArenaRecord, type EndedGame } from '../domain/arena.ts';
import type { ArenaPlayer } from '../domain/arenaPairing.ts';
import { DEFAULT_GLICKO } from '../domain/glicko2.ts';
import type { TimeControl } from '../domain/timeControl.ts';
import type { Queryable } from './pool.ts';
import { toArenaCounts, toTournamentRow, type TournamentRow } from './tournaments.ts';

// The tournament actor's SQL (migration 013): its lease, the start and the end, counting finished
// games into the standings, and seating the pairs of a round. Every write after the lease is
// taken runs under `fenceTournament`, so an actor that lost its lease changes nothing.

/** What the actor keeps of its tournament. */
export type HostedTournament = TournamentRow & {
  name: string;
  timeControl: TimeControl;
  initialTime: number;
  increment: number;
  rated: boolean;
  hostEpoch: number;
};

const toHosted = (r: any): HostedTournament => ({
  ...toTournamentRow(r),
  name: r.name,
  timeControl: r.time_control,
  initialTime: r.initial_time,
  increment: r.increment,
  rated: r.rated,
  hostEpoch: r.host_epoch,
});

const LEASE = `now() + make_interval(secs => $3::double precision / 1000)`;

/**
 * Whether tournament `t` needs an actor: two players to pair (joined, not withdrawn), or a game
 * of it to count. Without either there is nothing to do every 2 s: such an arena is started and
 * finished by the sweepers (`startUnhosted`, `finishUnhosted`), and its actor comes when the
 * second player joins.
 */
const NEEDS_ACTOR = `(t.player_count >= 2 OR EXISTS (SELECT 1 FROM tournament_games g WHERE g.tournament_id = t.id AND g.counted_at IS NULL))`;
const NO_LIVE_LEASE = `(t.lease_expires_at IS NULL OR t.lease_expires_at < now())`;

/**
 * Takes the tournament's lease when it is running, or due to start (`starts_at` reached at
 * `now`), needs an actor, and nobody holds a live lease on it: one atomic UPDATE, so one node wins.
 */
export async function acquireTournamentLease(db: Queryable, id: string, host: string, leaseMs: number, now: Date): Promise<HostedTournament | undefined> {
  const { rows } = await db.query(
    `UPDATE tournaments t SET host = $2, host_epoch = host_epoch + 1, lease_expires_at = ${LEASE}
      WHERE id = $1 AND (status = 'running' OR (status = 'upcoming' AND starts_at <= $4))
        AND ${NO_LIVE_LEASE} AND ${NEEDS_ACTOR}
      RETURNING *`,
    [id, host, leaseMs, now],
  );
  return rows[0] && toHosted(rows[0]);
}

/** Whether the tournament is running, or due to start at `now`, and needs an actor (someone may host it). */
export async function isHostable(db: Queryable, id: string, now: Date): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM tournaments t WHERE id = $1 AND (status = 'running' OR (status = 'upcoming' AND starts_at <= $2)) AND ${NEEDS_ACTOR}`,
    [id, now],
  );
  return rows.length > 0;
}

export async function renewTournamentLease(db: Queryable, id: string, epoch: number, leaseMs: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE tournaments SET lease_expires_at = ${LEASE} WHERE id = $1 AND host_epoch = $2 AND status <> 'finished'`,
    [id, epoch, leaseMs],
  );
  return rowCount === 1;
}

/** Gives the tournament up (graceful shutdown): any node's sweeper hosts it again at once. */
export async function releaseTournamentLease(db: Queryable, id: string, epoch: number): Promise<void> {
  await db.query('UPDATE tournaments SET lease_expires_at = NULL, host = NULL WHERE id = $1 AND host_epoch = $2', [id, epoch]);
}

/**
 * The first statement of each of the actor's transactions: locks the row as REST's joins and
 * withdrawals do, and only while the actor's epoch holds. Undefined: another node took over.
 */
export async function fenceTournament(tx: Queryable, id: string, epoch: number): Promise<TournamentRow | undefined> {
  const { rows } = await tx.query(
    `SELECT id, status, starts_at, ends_at, max_players, player_count FROM tournaments
      WHERE id = $1 AND host_epoch = $2 FOR NO KEY UPDATE`,
    [id, epoch],
  );
  return rows[0] && toTournamentRow(rows[0]);
}

/** upcoming → running; returns the players to tell (joined, not withdrawn). */
export async function markStarted(tx: Queryable, id: string, now: Date): Promise<string[]> {
  await tx.query(`UPDATE tournaments SET status = 'running', started_at = $2 WHERE id = $1 AND status = 'upcoming'`, [id, now]);
  const { rows } = await tx.query('SELECT user_id FROM tournament_players WHERE tournament_id = $1 AND NOT withdrawn', [id]);
  return rows.map((r) => r.user_id as string);
}

/** running → finished, and the lease goes with it (there is nothing left to host). */
export async function markFinished(tx: Queryable, id: string, now: Date): Promise<void> {
  await tx.query(
    `UPDATE tournaments SET status = 'finished', finished_at = $2, host = NULL, lease_expires_at = NULL WHERE id = $1 AND status = 'running'`,
    [id, now],
  );
}

/** Tournaments the sweeper should see hosted: needing an actor, and due to start at `now` or running with no live lease. */
export async function findTournamentsToHost(db: Queryable, now: Date, limit = 100): Promise<string[]> {
  const { rows } = await db.query(
    `(SELECT id FROM tournaments t WHERE status = 'upcoming' AND starts_at <= $1 AND ${NEEDS_ACTOR} ORDER BY starts_at LIMIT $2)
     UNION ALL
     (SELECT id FROM tournaments t WHERE status = 'running' AND ${NO_LIVE_LEASE} AND ${NEEDS_ACTOR}
       ORDER BY lease_expires_at NULLS FIRST LIMIT $2)`,
    [now, limit],
  );
  return rows.map((r) => r.id as string);
}

/**
 * Tournaments no actor needs to host whose time has come: due to start (to start), or past
 * `ends_at` while running (to finish). The sweepers start and finish them themselves.
 */
export async function findUnhostedDue(db: Queryable, now: Date, limit = 100): Promise<Array<{ id: string; status: 'upcoming' | 'running' }>> {
  const { rows } = await db.query(
    `(SELECT id, status FROM tournaments t WHERE status = 'upcoming' AND starts_at <= $1 AND ${NO_LIVE_LEASE} AND NOT ${NEEDS_ACTOR}
       ORDER BY starts_at LIMIT $2)
     UNION ALL
     (SELECT id, status FROM tournaments t WHERE status = 'running' AND ends_at <= $1 AND ${NO_LIVE_LEASE} AND NOT ${NEEDS_ACTOR}
       ORDER BY ends_at LIMIT $2)`,
    [now, limit],
  );
  return rows.map((r) => ({ id: r.id, status: r.status }));
}

/**
 * Locks a tournament that no actor hosts or needs, in `status`, whose `starts_at` (upcoming) or
 * `ends_at` (running) has come: what a sweeper starts or finishes. The lock is the one joins and
 * actors take, and the conditions are read again under it (a join that made two players first,
 * or a node that took the lease first, wins): so one node starts it, once.
 */
export async function lockUnhosted(tx: Queryable, id: string, status: 'upcoming' | 'running', now: Date): Promise<{ name: string; startsAt: Date } | undefined> {
  const { rows } = await tx.query(
    `SELECT name, starts_at FROM tournaments t
      WHERE id = $1 AND status = $2 AND (CASE WHEN $2 = 'upcoming' THEN starts_at ELSE ends_at END) <= $3
        AND ${NO_LIVE_LEASE} AND NOT ${NEEDS_ACTOR}
      FOR NO KEY UPDATE`,
    [id, status, now],
  );
  return rows[0] && { name: rows[0].name, startsAt: rows[0].starts_at };
}

// ---- counting finished games ---------------------------------------------------------------

/** The tournament's games that ended and are not in the standings yet, in the order they ended. */
export async function listEndedUncounted(db: Queryable, tournamentId: string, limit: number): Promise<EndedGame[]> {
  const { rows } = await db.query(
    // From the few uncounted rows to their games by key, however large the games table grows.
    `WITH open AS MATERIALIZED (
       SELECT game_id, white_id, black_id FROM tournament_games WHERE tournament_id = $1 AND counted_at IS NULL)
     SELECT t.game_id, t.white_id, t.black_id, g.status, g.winner, g.abort_reason, g.move_count,
            coalesce(g.white_rating, $2) AS white_rating, coalesce(g.black_rating, $2) AS black_rating,
            coalesce(g.finished_at, g.updated_at) AS finished_at
       FROM open t JOIN games g ON g.id = t.game_id
      WHERE g.status IN ('finished', 'abandoned')
      ORDER BY coalesce(g.finished_at, g.updated_at), t.game_id
      LIMIT $3`,
    [tournamentId, DEFAULT_GLICKO.rating, limit],
  );
  return rows.map((r) => ({
    gameId: r.game_id,
    whiteId: r.white_id,
    blackId: r.black_id,
    winner: r.winner,
    whiteRating: r.white_rating,
    blackRating: r.black_rating,
    endedAt: r.finished_at.getTime(),
    aborted: r.status === 'abandoned' ? { nonMover: r.abort_reason === 'no_first_move' ? didNotMove(r.move_count) : null } : null,
  }));
}

export type PlayerRecord = ArenaRecord & { userId: string; withdrawn: boolean };

export async function findRecords(db: Queryable, tournamentId: string, userIds: string[]): Promise<Map<string, PlayerRecord>> {
  const { rows } = await db.query(
    `SELECT user_id, score, games, wins, draws, losses, streak, opponent_rating_sum, withdrawn
       FROM tournament_players WHERE tournament_id = $1 AND user_id = ANY($2::uuid[])`,
    [tournamentId, userIds],
  );
  return new Map(
    rows.map((r) => [
      r.user_id as string,
      {
        userId: r.user_id,
        ...toArenaCounts(r),
        opponentRatingSum: r.opponent_rating_sum,
        withdrawn: r.withdrawn,
      },
    ]),
  );
}

export type RecordUpdate = ArenaRecord & { userId: string; performance: number | null; waitingSince: Date };

/**
 * Writes what counting a batch decided, in one statement: the players' records (and since when
 * they wait), the games marked counted with their points (null: aborted, nothing scored), and
 * the players who did not move withdrawn, `player_count` following.
 */
export async function saveCount(
  tx: Queryable,
  tournamentId: string,
  c: { records: RecordUpdate[]; games: Array<{ gameId: string; whitePoints: number | null; blackPoints: number | null }>; withdraw: string[]; now: Date },
): Promise<void> {
  const col = <K extends keyof RecordUpdate>(k: K) => c.records.map((u) => u[k]);
  await tx.query(
    `WITH gone AS (
       -- Read before the update below (one snapshot): who of them is still joined now.
       SELECT count(*)::int AS n FROM tournament_players WHERE tournament_id = $1 AND user_id = ANY($15::uuid[]) AND NOT withdrawn
     ), players AS (
       UPDATE tournament_players p SET score = x.score, games = x.games, wins = x.wins, draws = x.draws, losses = x.losses,
              streak = x.streak, opponent_rating_sum = x.ors, performance = x.performance, waiting_since = x.waiting_since,
              withdrawn = p.withdrawn OR x.user_id = ANY($15::uuid[])
         FROM unnest($2::uuid[], $3::int[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[], $9::bigint[], $10::int[], $11::timestamptz[])
              AS x(user_id, score, games, wins, draws, losses, streak, ors, performance, waiting_since)
        WHERE p.tournament_id = $1 AND p.user_id = x.user_id
     ), counted AS (
       UPDATE tournament_games t SET counted_at = $16, white_points = x.wp, black_points = x.bp
         FROM unnest($12::uuid[], $13::int[], $14::int[]) AS x(game_id, wp, bp)
        WHERE t.game_id = x.game_id AND t.counted_at IS NULL
     )
     UPDATE tournaments SET player_count = player_count - (SELECT n FROM gone) WHERE id = $1 AND (SELECT n FROM gone) > 0`,
    [
      tournamentId,
      col('userId'),
      col('score'),
      col('games'),
      col('wins'),
      col('draws'),
      col('losses'),
      col('streak'),
      col('opponentRatingSum'),
      col('performance'),
      col('waitingSince'),
      c.games.map((g) => g.gameId),
      c.games.map((g) => g.whitePoints),
      c.games.map((g) => g.blackPoints),
      c.withdraw,
      c.now,
    ],
  );
}

/** Games paired and not counted yet: in progress, or ended a moment ago. */
export async function countUncounted(db: Queryable, tournamentId: string): Promise<number> {
  const { rows } = await db.query('SELECT count(*)::int AS n FROM tournament_games WHERE tournament_id = $1 AND counted_at IS NULL', [
    tournamentId,
  ]);
  return rows[0].n;
}

// ---- pairing ---------------------------------------------------------------------------------

export type WaitingPlayer = ArenaPlayer & { username: string };

/**
 * Who waits for a game: joined, not withdrawn, in no active game anywhere and in no game of this
 * tournament that is not counted yet (so every score is current when they are paired).
 */
export async function listWaiting(db: Queryable, tournamentId: string, category: TimeControl): Promise<WaitingPlayer[]> {
  const { rows } = await db.query(
    `SELECT p.user_id, u.username, p.score, coalesce(r.rating, $3) AS rating, p.last_opponent_id, p.color_balance, p.waiting_since
       FROM tournament_players p
       JOIN users u ON u.id = p.user_id
       LEFT JOIN user_ratings r ON r.user_id = p.user_id AND r.category = $2
      WHERE p.tournament_id = $1 AND NOT p.withdrawn
        AND p.user_id NOT IN (SELECT unnest(ARRAY[t.white_id, t.black_id]) FROM tournament_games t
                               WHERE t.tournament_id = $1 AND t.counted_at IS NULL)
        AND NOT EXISTS (SELECT 1 FROM games g WHERE g.white_id = p.user_id AND g.status = 'active' AND g.days_per_move IS NULL)
        AND NOT EXISTS (SELECT 1 FROM games g WHERE g.black_id = p.user_id AND g.status = 'active' AND g.days_per_move IS NULL)`,
    [tournamentId, category, DEFAULT_GLICKO.rating],
  );
  return rows.map((r) => ({
    userId: r.user_id,
    username: r.username,
    score: r.score,
    rating: Math.round(r.rating),
    lastOpponentId: r.last_opponent_id,
    colorBalance: r.color_balance,
    waitingSince: r.waiting_since.getTime(),
  }));
}

/**
 * The tournament's games that are on and not begun (no move yet): a new host tells their players
 * again, in case the node that paired them died before it could.
 */
export async function listUnbegunGames(db: Queryable, tournamentId: string): Promise<Array<{ gameId: string; white: WaitingPlayerName; black: WaitingPlayerName }>> {
  const { rows } = await db.query(
    `SELECT g.id, g.white_id, w.username AS white_username, g.black_id, b.username AS black_username
       FROM tournament_games t JOIN games g ON g.id = t.game_id
       JOIN users w ON w.id = g.white_id JOIN users b ON b.id = g.black_id
      WHERE t.tournament_id = $1 AND t.counted_at IS NULL AND g.status = 'active' AND g.move_count = 0`,
    [tournamentId],
  );
  return rows.map((r) => ({
    gameId: r.id,
    white: { userId: r.white_id, username: r.white_username },
    black: { userId: r.black_id, username: r.black_username },
  }));
}

type WaitingPlayerName = { userId: string; username: string };

/**
 * Of `userIds`, those a round may seat now (read under the tournament's and the players' locks):
 * still joined, not withdrawn, in no active game anywhere; with their rating in `category`
 * (the rating their game starts with).
 */
export async function seatable(tx: Queryable, tournamentId: string, userIds: string[], category: TimeControl): Promise<Map<string, number>> {
  const { rows } = await tx.query(
    `SELECT p.user_id, coalesce(r.rating, $4) AS rating
       FROM tournament_players p
       LEFT JOIN user_ratings r ON r.user_id = p.user_id AND r.category = $3
      WHERE p.tournament_id = $1 AND p.user_id = ANY($2::uuid[]) AND NOT p.withdrawn
        AND NOT EXISTS (SELECT 1 FROM games g WHERE g.white_id = p.user_id AND g.status = 'active' AND g.days_per_move IS NULL)
        AND NOT EXISTS (SELECT 1 FROM games g WHERE g.black_id = p.user_id AND g.status = 'active' AND g.days_per_move IS NULL)`,
    [tournamentId, userIds, category, DEFAULT_GLICKO.rating],
  );
  return new Map(rows.map((r) => [r.user_id as string, Math.round(r.rating)]));
}

export type NewPairing = { whiteId: string; blackId: string; whiteRating: number; blackRating: number };

/**
 * Seats the round's pairs in one go: an active game each (both players seated, the first-move
 * deadline running), its tournament_games row, its game.started outbox row, and the players'
 * pairing memory. Returns the game ids in the order of `pairs`.
 */
export async function insertPairings(
  tx: Queryable,
  t: HostedTournament,
  pairs: NewPairing[],
  o: { firstMoveDeadline: Date; now: Date },
): Promise<string[]> {
  if (pairs.length === 0) return [];
  const white = pairs.map((p) => p.whiteId);
  // One statement (one round trip, however big the round): each game, its tournament_games row,
  // its game.started outbox row (to both players' webhooks, as every other way a game starts
  // sends it), and both players' pairing memory (last opponent, colour balance).
  const { rows } = await tx.query(
    `WITH x AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::int[], $4::int[]) WITH ORDINALITY AS x(w, b, wr, br, n)
     ), g AS (
       INSERT INTO games (kind, created_by, white_id, black_id, color_preference, status, time_control, initial_time, increment, rated,
                          white_time_ms, black_time_ms, white_rating, black_rating, first_move_deadline, started_at, tournament_id)
       SELECT 'tournament', x.w, x.w, x.b, 'random', 'active', $5, $6, $7, $8, $9, $9, x.wr, x.br, $10, now(), $11
         FROM x ORDER BY x.n
       RETURNING id, white_id, black_id
     ), tg AS (
       INSERT INTO tournament_games (game_id, tournament_id, white_id, black_id, paired_at)
       SELECT g.id, $11, g.white_id, g.black_id, $12 FROM g
     ), ob AS (
       INSERT INTO outbox (topic, game_id, user_ids, payload)
       SELECT 'game.started', g.id, ARRAY[g.white_id, g.black_id], jsonb_build_object('game_id', g.id) FROM g
     ), memory AS (
       UPDATE tournament_players p SET last_opponent_id = u.opponent, color_balance = p.color_balance + u.delta
         FROM (SELECT white_id AS user_id, black_id AS opponent, 1 AS delta FROM g
               UNION ALL SELECT black_id, white_id, -1 FROM g) u
        WHERE p.tournament_id = $11 AND p.user_id = u.user_id
     )
     SELECT id, white_id FROM g`,
    [white, pairs.map((p) => p.blackId), pairs.map((p) => p.whiteRating), pairs.map((p) => p.blackRating), t.timeControl, t.initialTime,
     t.increment, t.rated, t.initialTime * 1000, o.firstMoveDeadline, t.id, o.now],
  );
  const idOf = new Map(rows.map((r) => [r.white_id as string, r.id as string]));
  return white.map((w) => idOf.get(w)!);
}
