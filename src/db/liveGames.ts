import { DEFAULT_GLICKO, rateGame, type Glicko } from '../domain/glicko2.ts';
import type { Ending } from '../domain/game.ts';
import { enqueueAnalysis } from './analysis.ts';
import { toGameRecord, type DrawOfferRecord, type GameRecord } from './games.ts';
import type { TailMove } from './liveTail.ts';
import type { MoveWrite } from './moveWriter.ts';
import type { TakebackWrite } from '../domain/gameDecider.ts';
import { withTransaction, type Pool, type PoolClient, type Queryable } from './pool.ts';

/**
 * SQL of the live room: its ownership lease and the writes that are not plain moves (game end,
 * draw offers). Every write is fenced by the room's epoch: a room that lost the game cannot
 * change it.
 */

export type LeasedGame = GameRecord & { hostedAt: Date | null };

/**
 * Takes the game's lease if nobody holds it (or the holder's lapsed). The stored clocks are left
 * as they are: the new owner works out what to charge (src/domain/outage.ts) and saves it with
 * `saveResumedClocks`.
 */
export async function acquireLease(db: Queryable, gameId: string, host: string, leaseMs: number): Promise<LeasedGame | undefined> {
  const { rows } = await db.query(
    `UPDATE games SET host = $2, host_epoch = host_epoch + 1,
            lease_expires_at = now() + make_interval(secs => $3::double precision / 1000)
      WHERE id = $1 AND status = 'active' AND (lease_expires_at IS NULL OR lease_expires_at < now())
      RETURNING *`,
    [gameId, host, leaseMs],
  );
  return rows[0] ? { ...toGameRecord(rows[0]), hostedAt: rows[0].hosted_at ?? null } : undefined;
}

/** The clocks a new owner resumes with (fenced by its epoch); false when it lost the game meanwhile. */
export async function saveResumedClocks(
  db: Queryable,
  gameId: string,
  epoch: number,
  c: { whiteMs: number; blackMs: number; turnStartedAt: Date | null; firstMoveDeadline: Date | null; hostedAt: Date },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE games SET white_time_ms = $3, black_time_ms = $4, turn_started_at = $5, first_move_deadline = $6, hosted_at = $7
      WHERE id = $1 AND host_epoch = $2 AND status = 'active'`,
    [gameId, epoch, c.whiteMs, c.blackMs, c.turnStartedAt, c.firstMoveDeadline, c.hostedAt],
  );
  return rowCount === 1;
}

/**
 * Renews the leases of many games in one statement; returns the ids still owned. `hostedAt`
 * (the renewing node's clock) records that the games were hosted until then.
 */
/**
 * A SELECT that locks the games rows named by the uuid array `param`, one after the other in id
 * order, as the UPDATE that follows would (FOR NO KEY UPDATE: rows that reference a game may still
 * be inserted). Every statement that changes many games rows locks them this way first (a CTE
 * `AS MATERIALIZED` joined to its UPDATE): two statements locking as their arrays name them (the
 * move writer's batch and the lease renewal, under load) would otherwise deadlock.
 */
export const lockGamesInOrder = (param: string) =>
  `SELECT id FROM games WHERE id = ANY(${param}::uuid[]) ORDER BY id FOR NO KEY UPDATE`;

/**
 * Renews this node's leases, fenced by their epochs. `hostedAt` only moves forward: two rounds
 * in flight at once may commit in either order, and the older must not take the game's last
 * known hosting back (the next owner would charge the outage from there).
 */
export async function renewLeases(
  db: Queryable,
  leases: { gameId: string; epoch: number }[],
  leaseMs: number,
  hostedAt: Date | null = null,
): Promise<Set<string>> {
  if (leases.length === 0) return new Set();
  const { rows } = await db.query(
    `WITH locked AS MATERIALIZED (${lockGamesInOrder('$1')})
     UPDATE games g SET lease_expires_at = now() + make_interval(secs => $3::double precision / 1000),
            hosted_at = greatest($4, g.hosted_at)
       FROM unnest($1::uuid[], $2::bigint[]) AS l(id, epoch) JOIN locked ON locked.id = l.id
      WHERE g.id = l.id AND g.host_epoch = l.epoch AND g.status = 'active'
      RETURNING g.id`,
    [leases.map((l) => l.gameId), leases.map((l) => l.epoch), leaseMs, hostedAt],
  );
  return new Set(rows.map((r) => r.id as string));
}

/**
 * Ends leases this node no longer uses (games it gave up), fenced by their epochs, so that any
 * node may take them at once; a lease another node took meanwhile is left alone.
 */
export async function endLeases(db: Queryable, leases: { gameId: string; epoch: number }[]): Promise<void> {
  if (leases.length === 0) return;
  await db.query(
    `WITH locked AS MATERIALIZED (${lockGamesInOrder('$1')})
     UPDATE games g SET lease_expires_at = NULL
       FROM unnest($1::uuid[], $2::bigint[]) AS l(id, epoch) JOIN locked ON locked.id = l.id
      WHERE g.id = l.id AND g.host_epoch = l.epoch AND g.status = 'active'`,
    [leases.map((l) => l.gameId), leases.map((l) => l.epoch)],
  );
}

/**
 * Gives the game up (graceful dispose): clocks as of `turnStartedAt` (a clocked game's booked up
 * to now, a correspondence game's as of its turn's start), lease free for any node.
 */
export async function releaseLease(
  db: Queryable,
  gameId: string,
  epoch: number,
  clocks: { whiteMs: number; blackMs: number; turnStartedAt: Date; hostedAt: Date; firstMoveDeadline: Date | null },
): Promise<void> {
  await db.query(
    `UPDATE games SET lease_expires_at = NULL, host = NULL, white_time_ms = $3, black_time_ms = $4,
            turn_started_at = CASE WHEN clock_running THEN $7::timestamptz ELSE NULL END, hosted_at = $5,
            first_move_deadline = $6
      WHERE id = $1 AND host_epoch = $2 AND status = 'active'`,
    [gameId, epoch, clocks.whiteMs, clocks.blackMs, clocks.hostedAt, clocks.firstMoveDeadline, clocks.turnStartedAt],
  );
}

/** Every move of a game, for rebuilding it: its UCI and command key, and what a snapshot fold needs. */
export async function loadMoves(
  db: Queryable,
  gameId: string,
): Promise<(TailMove & { uci: string; clockMs: number; commandKey: string | null })[]> {
  const { rows } = await db.query(
    `SELECT ply, san, uci, clock_ms, command_key, fen, white_ms, black_ms, event_seq, played_at, created_at
       FROM game_moves WHERE game_id = $1 ORDER BY ply`,
    [gameId],
  );
  return rows.map((r) => ({
    ply: r.ply,
    san: r.san,
    uci: r.uci,
    clockMs: r.clock_ms,
    commandKey: r.command_key,
    fen: r.fen,
    whiteMs: r.white_ms,
    blackMs: r.black_ms,
    eventSeq: r.event_seq,
    playedAt: r.played_at,
    createdAt: r.created_at,
  }));
}

export type FinishInput = {
  gameId: string;
  epoch: number;
  /** The move that ended the game, written in the same transaction. */
  finalMove?: MoveWrite;
  ending: Ending | null;
  /** Set instead of `ending` for a game aborted before it really began (unrated, no stats). */
  abortReason?: 'no_first_move' | 'aborted';
  /** The draw offer whose acceptance ended the game. */
  acceptedOfferId?: string;
  whiteMs: number;
  blackMs: number;
  eventSeq: number;
  /** The game as it ends (with the final move): the row's snapshot, which lean moves left behind. */
  position: { fen: string; pgn: string; moveCount: number };
  /** The host's clock at the end (the analysis job is due from then). */
  now: number;
};

export type FinishResult = { ratingChanges: { white: number; black: number } } | { fenced: true };

// The final move's row, while the game is still active at the room's epoch (the row lock the
// finishing UPDATE then takes is already held: FOR NO KEY UPDATE here). The snapshot columns are
// written by the finishing UPDATE.
const FINAL_MOVE_SQL = `
INSERT INTO game_moves (game_id, ply, san, uci, clock_ms, command_key, fen, white_ms, black_ms, event_seq, played_at, created_at)
SELECT g.id, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12 FROM games g
 WHERE g.id = $1 AND g.host_epoch = $2 AND g.status = 'active' FOR NO KEY UPDATE
ON CONFLICT (game_id, ply) DO NOTHING RETURNING ply`;

/**
 * Ends a live game in one transaction: the final move (if any), the result, both players'
 * Glicko-2 ratings and stats (rated games), lapsed draw offers, the game.finished event and the
 * game's analysis job.
 */
export async function finishGame(pool: Pool, f: FinishInput): Promise<FinishResult> {
  return withTransaction(pool, async (tx) => {
    if (f.finalMove) {
      const m = f.finalMove;
      const { rowCount } = await tx.query(FINAL_MOVE_SQL, [
        m.gameId, m.epoch, m.ply, m.san, m.uci, m.clockMs, m.commandKey ?? null, m.fen, m.whiteMs, m.blackMs, m.eventSeq, m.playedAt,
      ]);
      if (rowCount !== 1) return { fenced: true };
    }
    const status = f.abortReason ? 'abandoned' : 'finished';
    const { rows } = await tx.query(
      `UPDATE games SET status = $3, result = $4, winner = $5, termination = $6, abort_reason = $7,
              white_time_ms = $8, black_time_ms = $9, clock_running = false, turn_started_at = NULL,
              first_move_deadline = NULL, event_seq = $10, finished_at = now(), updated_at = now(),
              lease_expires_at = NULL, host = NULL, fen = $11, pgn = $12, move_count = $13,
              last_move_at = coalesce($14::timestamptz, last_move_at)
        WHERE id = $1 AND host_epoch = $2 AND status = 'active'
        RETURNING *`,
      [f.gameId, f.epoch, status, f.ending?.result ?? null, f.ending?.winner ?? null, f.ending?.termination ?? null,
       f.abortReason ?? null, f.whiteMs, f.blackMs, f.eventSeq, f.position.fen, f.position.pgn, f.position.moveCount,
       f.finalMove?.playedAt ?? null],
    );
    if (!rows[0]) return { fenced: true };
    const game = toGameRecord(rows[0]);
    if (f.acceptedOfferId) {
      await tx.query(`UPDATE draw_offers SET status = 'accepted', answered_at = now() WHERE id = $1 AND status = 'pending'`, [
        f.acceptedOfferId,
      ]);
    }
    // The game's pending draw offer and takeback proposal lapse with it: one round trip for both.
    await tx.query(
      `WITH draws AS (UPDATE draw_offers SET status = 'expired', answered_at = now() WHERE game_id = $1 AND status = 'pending')
       UPDATE takeback_offers SET status = 'expired', answered_at = now() WHERE game_id = $1 AND status = 'pending'`,
      [f.gameId],
    );
    let ratingChanges = { white: 0, black: 0 };
    if (f.ending && game.whiteId && game.blackId) {
      if (game.rated) ratingChanges = await rate(tx, game, f.ending);
      await recordStats(tx, game, f.ending);
    }
    await tx.query('UPDATE games SET white_rating_change = $2, black_rating_change = $3 WHERE id = $1', [
      f.gameId,
      ratingChanges.white,
      ratingChanges.black,
    ]);
    await tx.query(`INSERT INTO outbox (topic, game_id, user_ids, payload) VALUES ('game.finished', $1, $2, $3)`, [
      f.gameId,
      [game.whiteId, game.blackId].filter(Boolean),
      JSON.stringify({
        game_id: f.gameId,
        status,
        result: f.ending?.result ?? null,
        winner: f.ending?.winner ?? null,
        termination: f.ending?.termination ?? null,
        abort_reason: f.abortReason ?? null,
        rating_changes: ratingChanges,
      }),
    ]);
    // Every finished game is analysed; an aborted one (no real game) is not.
    if (status === 'finished') await enqueueAnalysis(tx, f.gameId, f.now);
    return { ratingChanges };
  });
}

async function rate(tx: PoolClient, game: GameRecord, ending: Ending): Promise<{ white: number; black: number }> {
  const ids = [game.whiteId!, game.blackId!];
  // Rows exist before they are locked (a missing row cannot be locked), in a fixed order so
  // two games finishing at once with the same players cannot deadlock.
  for (const id of [...ids].sort()) {
    await tx.query(
      `INSERT INTO user_ratings (user_id, category, rating, rd, volatility) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING`,
      [id, game.timeControl, DEFAULT_GLICKO.rating, DEFAULT_GLICKO.deviation, DEFAULT_GLICKO.volatility],
    );
  }
  const { rows } = await tx.query(
    `SELECT user_id, rating, rd, volatility FROM user_ratings WHERE user_id = ANY($1::uuid[]) AND category = $2
      ORDER BY user_id FOR UPDATE`,
    [ids, game.timeControl],
  );
  const glicko = (id: string): Glicko => {
    const r = rows.find((x) => x.user_id === id);
    return { rating: r.rating, deviation: r.rd, volatility: r.volatility };
  };
  const score = ending.winner === 'white' ? 1 : ending.winner === 'black' ? 0 : 0.5;
  const rated = rateGame(glicko(game.whiteId!), glicko(game.blackId!), score);
  for (const [id, g] of [[game.whiteId!, rated.white], [game.blackId!, rated.black]] as const) {
    await tx.query(
      `UPDATE user_ratings SET rating = $3, rd = $4, volatility = $5, games = games + 1, updated_at = now()
        WHERE user_id = $1 AND category = $2`,
      [id, game.timeControl, g.rating, g.deviation, g.volatility],
    );
  }
  return rated.changes;
}

async function recordStats(tx: PoolClient, game: GameRecord, ending: Ending): Promise<void> {
  const outcome = (color: 'white' | 'black') => (ending.winner === null ? 'draws' : ending.winner === color ? 'wins' : 'losses');
  for (const color of ['white', 'black'] as const) {
    const column = outcome(color);
    await tx.query(`UPDATE users SET games_played = games_played + 1, ${column} = ${column} + 1 WHERE id = $1`, [
      color === 'white' ? game.whiteId : game.blackId,
    ]);
  }
}

export async function insertDrawOffer(
  db: Queryable,
  o: { gameId: string; epoch: number; offerId: string; offeredBy: string; ply: number; expiresAt: Date; eventSeq: number; at: Date },
): Promise<boolean> {
  // updated_at is the actor's time, as the live game shows it (src/services/liveGameDetail.ts).
  const { rows } = await db.query(
    `WITH g AS (UPDATE games SET event_seq = $7, updated_at = $8
                 WHERE id = $1 AND host_epoch = $2 AND status = 'active' RETURNING id)
     INSERT INTO draw_offers (id, game_id, offered_by, ply, status, expires_at)
     SELECT $3, $1, $4, $5, 'pending', $6 FROM g RETURNING id`,
    [o.gameId, o.epoch, o.offerId, o.offeredBy, o.ply, o.expiresAt, o.eventSeq, o.at],
  );
  return rows.length === 1;
}

/** pending → declined/expired (accepted goes through finishGame). False when fenced out. */
export async function closeDrawOffer(
  db: Queryable,
  o: { gameId: string; epoch: number; offerId: string; status: 'declined' | 'expired' | 'accepted'; eventSeq: number; at: Date },
): Promise<boolean> {
  const { rows } = await db.query(
    `WITH g AS (UPDATE games SET event_seq = $5, updated_at = $6
                 WHERE id = $1 AND host_epoch = $2 AND status = 'active' RETURNING id)
     UPDATE draw_offers SET status = $4, answered_at = now()
       FROM g WHERE draw_offers.id = $3 AND draw_offers.game_id = g.id AND draw_offers.status = 'pending'
     RETURNING draw_offers.id`,
    [o.gameId, o.epoch, o.offerId, o.status, o.eventSeq, o.at],
  );
  return rows.length === 1;
}

export type StoredDrawOffer = Pick<DrawOfferRecord, 'id' | 'offeredBy' | 'ply' | 'expiresAt' | 'status'>;

/** Every draw offer of a game, oldest first (a few at most: one per player per 20 plies). */
export async function loadDrawOffers(db: Queryable, gameId: string): Promise<StoredDrawOffer[]> {
  const { rows } = await db.query(
    'SELECT id, offered_by, ply, expires_at, status FROM draw_offers WHERE game_id = $1 ORDER BY created_at, ply',
    [gameId],
  );
  return rows.map((r) => ({ id: r.id, offeredBy: r.offered_by, ply: r.ply, expiresAt: r.expires_at, status: r.status }));
}

// ---- takebacks (DESIGN 2.11, migration 024) ------------------------------------------------

export async function insertTakeback(
  db: Queryable,
  o: { gameId: string; epoch: number; takebackId: string; offeredBy: string; ply: number; plies: number; expiresAt: Date; eventSeq: number; at: Date },
): Promise<boolean> {
  const { rows } = await db.query(
    `WITH g AS (UPDATE games SET event_seq = $8, updated_at = $9
                 WHERE id = $1 AND host_epoch = $2 AND status = 'active' RETURNING id)
     INSERT INTO takeback_offers (id, game_id, offered_by, ply, plies, status, expires_at)
     SELECT $3, $1, $4, $5, $6, 'pending', $7 FROM g RETURNING id`,
    [o.gameId, o.epoch, o.takebackId, o.offeredBy, o.ply, o.plies, o.expiresAt, o.eventSeq, o.at],
  );
  return rows.length === 1;
}

/** pending → declined/expired (accepted goes through takeBack). False when fenced out. */
export async function closeTakeback(
  db: Queryable,
  o: { gameId: string; epoch: number; takebackId: string; status: 'declined' | 'expired'; eventSeq: number; at: Date },
): Promise<boolean> {
  const { rows } = await db.query(
    `WITH g AS (UPDATE games SET event_seq = $5, updated_at = $6
                 WHERE id = $1 AND host_epoch = $2 AND status = 'active' RETURNING id)
     UPDATE takeback_offers t SET status = $4, answered_at = now()
       FROM g WHERE t.id = $3 AND t.game_id = g.id AND t.status = 'pending'
     RETURNING t.id`,
    [o.gameId, o.epoch, o.takebackId, o.status, o.eventSeq, o.at],
  );
  return rows.length === 1;
}

export type TakeBackInput = Omit<TakebackWrite, 'kind'> & { gameId: string; epoch: number; at: Date };

/**
 * An accepted takeback, all or nothing in one transaction fenced by the lease epoch: the games
 * row is locked first (as every writer of a live game does, so the move writer's next batch
 * waits for it), the move rows after `toPly` leave game_moves for taken_back_moves, the row's
 * snapshot becomes the game as it now stands, the proposal is closed as accepted and a webhook
 * move feed past the takeback is moved back (its receivers get the new moves at those plies).
 * False when fenced out (nothing written); throws (and rolls back) when the log is not as the
 * actor believes it, so nothing is ever half taken back.
 */
export async function takeBack(pool: Pool, t: TakeBackInput): Promise<boolean> {
  return withTransaction(pool, async (tx) => {
    const { rows: held } = await tx.query(
      `SELECT id FROM games WHERE id = $1 AND host_epoch = $2 AND status = 'active' FOR NO KEY UPDATE`,
      [t.gameId, t.epoch],
    );
    if (held.length === 0) return false;
    const { rows: moved } = await tx.query(
      `WITH gone AS (DELETE FROM game_moves WHERE game_id = $1 AND ply > $2 RETURNING *)
       INSERT INTO taken_back_moves (takeback_id, game_id, ply, san, uci, clock_ms, command_key, fen, white_ms, black_ms,
                                     event_seq, played_at, created_at, taken_back_at)
       SELECT $3, game_id, ply, san, uci, clock_ms, command_key, fen, white_ms, black_ms, event_seq, played_at, created_at, $4
         FROM gone RETURNING ply`,
      [t.gameId, t.toPly, t.takebackId, t.at],
    );
    if (moved.length !== t.plies) throw new Error(`game ${t.gameId}: takeback of ${t.plies} plies found ${moved.length} move rows after ply ${t.toPly}`);
    await tx.query(
      `UPDATE games SET fen = $2, pgn = $3, move_count = $4, white_time_ms = $5, black_time_ms = $6, clock_running = true,
              turn_started_at = $7, first_move_deadline = NULL, room_state = $8, event_seq = $9, hosted_at = $10, updated_at = $10,
              last_move_at = $10, move_deadline = $7::timestamptz + make_interval(secs => days_per_move * 86400)
        WHERE id = $1`,
      [t.gameId, t.fen, t.pgn, t.toPly, t.whiteMs, t.blackMs, t.turnStartedAt, JSON.stringify(t.roomState), t.eventSeq, t.at],
    );
    const { rowCount } = await tx.query(
      `UPDATE takeback_offers SET status = 'accepted', answered_at = $3 WHERE id = $1 AND game_id = $2 AND status = 'pending'`,
      [t.takebackId, t.gameId, t.at],
    );
    if (rowCount !== 1) throw new Error(`game ${t.gameId}: takeback ${t.takebackId} is not pending`);
    await tx.query('UPDATE webhook_move_feeds SET next_ply = least(next_ply, $2) WHERE game_id = $1', [t.gameId, t.toPly + 1]);
    return true;
  });
}

export type StoredTakeback = { id: string; offeredBy: string; ply: number; plies: 1 | 2; expiresAt: Date; status: 'pending' | 'accepted' | 'declined' | 'expired' };

/** Every takeback proposal of a game, oldest first (at most three a player). */
export async function loadTakebacks(db: Queryable, gameId: string): Promise<StoredTakeback[]> {
  const { rows } = await db.query(
    'SELECT id, offered_by, ply, plies, expires_at, status FROM takeback_offers WHERE game_id = $1 ORDER BY created_at, ply',
    [gameId],
  );
  return rows.map((r) => ({ id: r.id, offeredBy: r.offered_by, ply: r.ply, plies: r.plies, expiresAt: r.expires_at, status: r.status }));
}
