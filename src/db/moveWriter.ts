import pg from 'pg';
import { systemClock, type Clock } from '../time.ts';
import type { MoveRecord } from '../domain/liveGame.ts';
import { lockGamesInOrder } from './liveGames.ts';
import type { Pool, PoolClient } from './pool.ts';

/** One accepted move of one game (the decider's record), fenced by the room's lease epoch. */
export type MoveWrite = MoveRecord & {
  gameId: string;
  /** The room's lease epoch: the write lands only while the room still owns the game. */
  epoch: number;
  /** The key of the command that made the move, so a retry reaching another node is recognised. */
  commandKey?: string | null;
};

type Pending = { write: MoveWrite; resolve: (landed: boolean) => void; reject: (e: unknown) => void };

// One statement writes a whole batch: the snapshot update is fenced by epoch and by the ply
// (so a write can never land twice or out of order), and only games whose update landed get
// their move row, and lapse the pending draw offer of the opponent (the recipient moved). The
// move's time is the actor's (its clock), not PostgreSQL's now(): the live game serves reads of
// last_move_at from memory (src/services/liveGameDetail.ts) and must show what is stored.
// The games' rows are locked first, in id order (LOCK_GAMES_IN_ORDER), as every statement that
// changes many of them does: in the order of its array each would deadlock with another.
const BATCH_SQL = `
WITH i AS (
  SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[],
                       $8::int[], $9::int[], $10::int[], $11::bool[], $12::timestamptz[], $13::timestamptz[],
                       $14::jsonb[], $15::int[], $16::uuid[], $17::text[], $18::timestamptz[])
    AS t(game_id, epoch, ply, san, uci, fen, pgn_suffix, clock_ms, white_ms, black_ms, running,
         turn_started, first_deadline, room_state, event_seq, mover_id, command_key, moved_at)
), locked AS MATERIALIZED (${lockGamesInOrder('$1')}
), upd AS (
  UPDATE games g SET fen = i.fen, pgn = g.pgn || i.pgn_suffix, move_count = i.ply,
         white_time_ms = i.white_ms, black_time_ms = i.black_ms, clock_running = i.running,
         turn_started_at = i.turn_started, first_move_deadline = i.first_deadline,
         room_state = i.room_state, event_seq = i.event_seq, hosted_at = coalesce(i.turn_started, g.hosted_at),
         last_move_at = i.moved_at
    FROM i JOIN locked ON locked.id = i.game_id
   WHERE g.id = i.game_id AND g.host_epoch = i.epoch AND g.move_count = i.ply - 1 AND g.status = 'active'
  RETURNING g.id
), mv AS (
  INSERT INTO game_moves (game_id, ply, san, uci, clock_ms, command_key, created_at)
  SELECT i.game_id, i.ply, i.san, i.uci, i.clock_ms, i.command_key, i.moved_at FROM i JOIN upd ON upd.id = i.game_id
), lapse AS (
  UPDATE draw_offers d SET status = 'expired', answered_at = now()
    FROM i JOIN upd ON upd.id = i.game_id
   WHERE d.game_id = i.game_id AND d.status = 'pending' AND d.offered_by <> i.mover_id
)
SELECT id FROM upd`;

/**
 * How long a move write may stay outstanding (queued, then written) before its node gives up on
 * it: the writer abandons a batch statement still running this long after the batch started, and
 * the host stops renewing the lease of a game whose write is older (LiveGameHost.renewAll), so
 * another node takes the game over once the lease lapses. Half the lease: 7.5 s at the default
 * 15 s, above the pool's statement timeout (5 s, src/db/pool.ts) so PostgreSQL normally cancels a
 * stuck statement first and we know it did not land; and well below the lease, so that a node
 * whose writes hang gives its games up within about two leases (the deadline, up to a renewal
 * interval of a third of the lease, then the lease itself) instead of holding them forever.
 */
export const writeDeadlineMs = (leaseMs: number) => leaseMs / 2;

/** The writer gave up waiting for a batch statement (its connection is destroyed). */
export class MoveWriteTimeout extends Error {
  constructor(ms: number) {
    super(`move batch gave no answer within its ${ms} ms deadline`);
    this.name = 'MoveWriteTimeout';
  }
}

/** A value or constraint PostgreSQL refused (SQLSTATE classes 22 and 23): the fault of some rows. */
const isDataError = (error: unknown) => error instanceof pg.DatabaseError && /^2[23]/.test(error.code ?? '');
/** 57014: cancelled, here by statement_timeout. */
const isTimeout = (error: unknown) =>
  error instanceof MoveWriteTimeout || (error instanceof pg.DatabaseError && error.code === '57014');

/**
 * Group commit for moves: every move of every room in this process that arrives while a batch
 * is being written goes into the next one, so one round trip and one WAL flush carry many moves
 * and durability does not cap throughput. A move is acknowledged only after its batch commits.
 */
export class MoveWriter {
  private queue: Pending[] = [];
  /** The game of every write queued or being written, and since when (clock ms). */
  private readonly outstanding = new Map<string, number>();
  private inFlight = 0;
  private scheduled = false;
  private readonly clock: Clock;
  private readonly deadlineMs: number;
  private readonly maxBatch: number;
  // One batch at a time: moves arriving meanwhile wait and leave together, so under load the
  // batches grow instead of the number of round trips (each one a write syscall and a commit).
  private readonly maxInFlight: number;

  /** Called with every batch statement's duration (ms), landed or not: the metrics' histogram. */
  onBatch: (ms: number, moves: number) => void = () => {};

  /** Batches and moves written (the benchmark's batch size), and what failed, for the metrics. */
  readonly stats = {
    batches: 0,
    moves: 0,
    /** Batch statements that failed as a whole (timeout, connection): every write in them rejected. */
    failedBatches: 0,
    /** Of those, cancelled by statement_timeout or given up at the writer's deadline. */
    timeouts: 0,
    /** Writes rejected alone for a value or constraint PostgreSQL refused. */
    badRows: 0,
  };

  constructor(
    private readonly pool: Pool,
    o: { clock?: Clock; deadlineMs?: number; maxBatch?: number; maxInFlight?: number } = {},
  ) {
    this.clock = o.clock ?? systemClock;
    this.deadlineMs = o.deadlineMs ?? writeDeadlineMs(15_000);
    this.maxBatch = o.maxBatch ?? 500;
    this.maxInFlight = o.maxInFlight ?? 1;
  }

  /**
   * Resolves true once durable, false when the write was fenced out (the room lost the game).
   * Rejects when PostgreSQL refused this write's values, or its batch failed or timed out.
   *
   * A game has at most one write outstanding, so a batch never holds two writes of one game (the
   * batch statement joins its rows by game id: two rows of one game would both insert a move).
   * A second write while the first is queued or being written is rejected at once rather than
   * deferred to the next batch: the actor awaits each write before it sends the next, so a
   * second one means it lost track of its own state, and deferring would hide that. Rejected,
   * the write reaches LiveGame's persist, which gives the game back to PostgreSQL (markLost):
   * the safe end for a game whose memory cannot be trusted.
   */
  write(write: MoveWrite): Promise<boolean> {
    if (this.outstanding.has(write.gameId)) {
      return Promise.reject(new Error(`move writer: game ${write.gameId} sent a write while its previous one is outstanding`));
    }
    this.outstanding.set(write.gameId, this.clock.now());
    const settled = () => this.outstanding.delete(write.gameId);
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.schedule();
    }).finally(settled);
  }

  /** Games whose write has been outstanding longer than the deadline: this node cannot vouch for them. */
  overdue(): Set<string> {
    const now = this.clock.now();
    const ids = new Set<string>();
    for (const [gameId, since] of this.outstanding) if (now - since > this.deadlineMs) ids.add(gameId);
    return ids;
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    // setImmediate gathers every move that arrived in this turn of the event loop.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.inFlight++;
    this.stats.batches++;
    this.stats.moves += batch.length;
    const started = performance.now();
    try {
      await this.writeIsolating(batch, this.clock.now() + this.deadlineMs);
    } finally {
      this.onBatch(performance.now() - started, batch.length);
      this.inFlight--;
      this.schedule();
    }
  }

  /**
   * Writes `batch` in one statement. A data error belongs to some row: the batch is halved and
   * each half written alone, down to the culprit, which alone is rejected; one bad row costs about
   * 2·log2(n) more statements and no other game its move. Any other failure (timeout, lost
   * connection) says nothing about single rows: every write of the statement is rejected.
   */
  private async writeIsolating(batch: Pending[], deadlineAt: number): Promise<void> {
    try {
      const landed = await this.writeBatch(batch.map((p) => p.write), deadlineAt);
      for (const p of batch) p.resolve(landed.has(p.write.gameId));
    } catch (error) {
      if (isDataError(error) && batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        await this.writeIsolating(batch.slice(0, half), deadlineAt);
        await this.writeIsolating(batch.slice(half), deadlineAt);
        return;
      }
      if (isDataError(error)) {
        this.stats.badRows++;
      } else {
        this.stats.failedBatches++;
        if (isTimeout(error)) this.stats.timeouts++;
      }
      for (const p of batch) p.reject(error);
    }
  }

  private async writeBatch(writes: MoveWrite[], deadlineAt: number): Promise<Set<string>> {
    const col = <K extends keyof MoveWrite>(k: K) => writes.map((w) => w[k]);
    const { rows } = await this.query(deadlineAt, { name: 'move-batch', text: BATCH_SQL }, [
      col('gameId'),
      col('epoch'),
      col('ply'),
      col('san'),
      col('uci'),
      col('fen'),
      col('pgnSuffix'),
      col('clockMs'),
      col('whiteMs'),
      col('blackMs'),
      col('clockRunning'),
      col('turnStartedAt'),
      col('firstMoveDeadline'),
      writes.map((w) => JSON.stringify(w.roomState)),
      col('eventSeq'),
      col('moverId'),
      writes.map((w) => w.commandKey ?? null),
      col('movedAt'),
    ]);
    return new Set(rows.map((r) => r.id as string));
  }

  /**
   * One statement on a connection of its own, abandoned at `deadlineAt`: the connection is then
   * destroyed, so whatever it answers later is never read. (The statement itself may still run on
   * the server until statement_timeout cancels it; the epoch and ply fences keep a late landing
   * harmless.)
   */
  private query(deadlineAt: number, statement: { name: string; text: string }, params: unknown[]): Promise<pg.QueryResult> {
    // Named, the statement is parsed and planned once per connection, not once per batch: at a
    // human pace batches are small and that planning was a quarter of PostgreSQL's CPU per batch
    // (1,149 → 888 µs, measured with pg_stat_statements and /proc under `npm run bench`).
    const ms = deadlineAt - this.clock.now();
    if (ms <= 0) return Promise.reject(new MoveWriteTimeout(this.deadlineMs));
    return new Promise((resolve, reject) => {
      let done = false;
      let client: PoolClient | undefined;
      const timer = this.clock.setTimeout(() => {
        if (done) return;
        done = true;
        const error = new MoveWriteTimeout(this.deadlineMs);
        client?.release(error); // released with an error, the pool closes the connection
        reject(error);
      }, ms);
      const settle = (c: PoolClient | undefined, error: unknown, result?: pg.QueryResult) => {
        if (done) return;
        done = true;
        this.clock.clearTimeout(timer);
        // The server answered an error (DatabaseError): the connection is sound, keep it.
        c?.release(error && !(error instanceof pg.DatabaseError) ? (error as Error) : undefined);
        if (error) reject(error);
        else resolve(result!);
      };
      this.pool.connect().then(
        (c) => {
          if (done) return c.release();
          client = c;
          c.query({ ...statement, values: params }).then(
            (result) => settle(c, undefined, result),
            (error: unknown) => settle(c, error),
          );
        },
        (error: unknown) => settle(undefined, error),
      );
    });
  }
}
