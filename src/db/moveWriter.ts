import pg from 'pg';
import { systemClock, type Clock, type TimerHandle } from '../time.ts';
import type { MoveRecord } from '../domain/gameDecider.ts';
import type { Pool, PoolClient } from './pool.ts';

/** One accepted move of one game (the decider's record), fenced by the room's lease epoch. */
export type MoveWrite = MoveRecord & {
  gameId: string;
  /** The room's lease epoch: the write lands only while the room still owns the game. */
  epoch: number;
  /** The key of the command that made the move, so a retry reaching another node is recognised. */
  commandKey?: string | null;
};

type Pending = { write: MoveWrite; urgent: boolean; resolve: (landed: boolean) => void; reject: (e: unknown) => void };

/** How a write is queued: `urgent`, it never waits in the commit window (see MoveWriter.schedule). */
export type WriteOptions = { urgent?: boolean };

/**
 * The game row's snapshot is rewritten by the first two plies (the clocks start and the
 * first-move deadlines change there), by every SNAPSHOT_EVERY-th ply, and by a move that lapses a
 * draw offer or a takeback proposal (its statement closes them); every other move is appended
 * alone (leanSql). Reads of an active game fold the
 * moves after the snapshot into it (src/db/liveTail.ts), so the snapshot's lag costs a read at
 * most SNAPSHOT_EVERY − 1 small rows. Every 40th rather than every 10th: under the bench a
 * snapshot batch cost about as much PostgreSQL CPU as several appends, and with snapshots only
 * at plies 1–2 PostgreSQL's CPU per move fell 633 → 482 µs (one run, docs/benchmarks.md); a read folds at
 * most 39 rows of ~100 bytes, and a hosted game's detail is read from its actor anyway. Every move
 * of a correspondence game writes it: the row holds the next deadline the sweeper looks for, and
 * such moves are days apart.
 */
export const SNAPSHOT_EVERY = 40;
export const writesSnapshot = (w: Pick<MoveWrite, 'ply' | 'lapsesOffer' | 'lapsesTakeback' | 'moveDeadline'>) =>
  w.ply <= 2 || w.ply % SNAPSHOT_EVERY === 0 || w.lapsesOffer || w.lapsesTakeback === true || !!w.moveDeadline;

type Column = readonly [name: string, type: string, value: (w: MoveWrite) => unknown];

// A move row's fields, and the snapshot's beside them.
const MOVE_COLUMNS: readonly Column[] = [
  ['game_id', 'uuid', (w) => w.gameId],
  ['epoch', 'bigint', (w) => w.epoch],
  ['ply', 'int', (w) => w.ply],
  ['san', 'text', (w) => w.san],
  ['uci', 'text', (w) => w.uci],
  ['fen', 'text', (w) => w.fen],
  ['clock_ms', 'int', (w) => w.clockMs],
  ['white_ms', 'int', (w) => w.whiteMs],
  ['black_ms', 'int', (w) => w.blackMs],
  ['played_at', 'timestamptz', (w) => w.playedAt],
  ['event_seq', 'int', (w) => w.eventSeq],
  ['command_key', 'text', (w) => w.commandKey ?? null],
];
const SNAPSHOT_COLUMNS: readonly Column[] = [
  ...MOVE_COLUMNS,
  ['pgn', 'text', (w) => w.pgn],
  ['running', 'bool', (w) => w.clockRunning],
  ['first_deadline', 'timestamptz', (w) => w.firstMoveDeadline],
  ['room_state', 'jsonb', (w) => JSON.stringify(w.roomState)],
  ['mover_id', 'uuid', (w) => w.moverId],
  ['move_deadline', 'timestamptz', (w) => w.moveDeadline ?? null],
];

/**
 * Batches up to this many rows name each field as a parameter of a VALUES list; larger ones pass
 * one array a column. PostgreSQL parses array parameters dearly: a one-move append cost its
 * backend ~400 µs of CPU through unnest() and ~190 µs as VALUES (loadtest/gameWrites.ts), and at
 * a human pace a batch carries one to three moves. One statement is prepared per row count.
 */
const VALUES_MAX = 16;

/** The FROM item `i` of a batch of `n` rows: a VALUES list of parameters, or one array a column. */
function rowsFrom(columns: readonly Column[], n: number): string {
  const names = columns.map(([name]) => name).join(', ');
  if (n > VALUES_MAX) return `unnest(${columns.map(([, type], k) => `$${k + 1}::${type}[]`).join(', ')}) AS i(${names})`;
  const rows = Array.from({ length: n }, (_, r) => `(${columns.map(([, type], k) => `$${r * columns.length + k + 1}::${type}`).join(', ')})`);
  return `(VALUES ${rows.join(', ')}) AS i(${names})`;
}

/** The parameters that fill rowsFrom's FROM item for `writes`. */
function rowParams(columns: readonly Column[], writes: readonly MoveWrite[]): unknown[] {
  if (writes.length > VALUES_MAX) return columns.map(([, , value]) => writes.map(value));
  const params: unknown[] = [];
  for (const w of writes) for (const [, , value] of columns) params.push(value(w));
  return params;
}

const INSERT_MOVES = `INSERT INTO game_moves (game_id, ply, san, uci, clock_ms, command_key, fen, white_ms, black_ms, event_seq, played_at, created_at)`;
const MOVE_VALUES = `i.game_id, i.ply, i.san, i.uci, i.clock_ms, i.command_key, i.fen, i.white_ms, i.black_ms, i.event_seq, i.played_at, i.played_at`;

// A move's time is the actor's (its clock), not PostgreSQL's now(): the live game serves reads of
// a game it hosts from memory (src/services/liveGameDetail.ts) and must show what is stored.
//
// A lean batch: the move rows alone, each landing only while its game is active and held at the
// room's epoch. FOR SHARE holds each game's row until the commit, so a takeover (an UPDATE of
// host_epoch) either waits for this write and then finds its move, or goes first and fences it
// out; the rows are locked in id order, as every statement that locks many games does
// (lockGamesInOrder). A ply already written (only a split brain could do that) lands nothing.
const leanSql = (from: string) => `
WITH i AS MATERIALIZED (SELECT * FROM ${from})
${INSERT_MOVES}
SELECT ${MOVE_VALUES}
  FROM (SELECT g.id FROM games g JOIN i ON g.id = i.game_id AND g.host_epoch = i.epoch
         WHERE g.status = 'active' ORDER BY g.id FOR SHARE OF g) held
  JOIN i ON i.game_id = held.id
ON CONFLICT (game_id, ply) DO NOTHING
RETURNING game_id`;

// A snapshot batch: the move rows, and the games rows rewritten as the moves leave them. The
// update is fenced by epoch and by the ply (a snapshot never goes back); only games whose update
// landed get their move row, lapse the pending draw offer of the opponent (the recipient
// moved) and the pending takeback proposal (any move lapses it). The games' rows are locked first, in id order, as lockGamesInOrder does.
const snapshotSql = (from: string) => `
WITH i AS MATERIALIZED (SELECT * FROM ${from}
), locked AS MATERIALIZED (
  SELECT id FROM games WHERE id IN (SELECT game_id FROM i) ORDER BY id FOR NO KEY UPDATE
), upd AS (
  UPDATE games g SET fen = i.fen, pgn = i.pgn, move_count = i.ply,
         white_time_ms = i.white_ms, black_time_ms = i.black_ms, clock_running = i.running,
         turn_started_at = CASE WHEN i.running THEN i.played_at END, first_move_deadline = i.first_deadline,
         room_state = i.room_state, event_seq = i.event_seq, hosted_at = coalesce(i.played_at, g.hosted_at),
         last_move_at = i.played_at, move_deadline = i.move_deadline
    FROM i JOIN locked ON locked.id = i.game_id
   WHERE g.id = i.game_id AND g.host_epoch = i.epoch AND g.move_count < i.ply AND g.status = 'active'
  RETURNING g.id
), mv AS (
  ${INSERT_MOVES}
  SELECT ${MOVE_VALUES} FROM i JOIN upd ON upd.id = i.game_id
  ON CONFLICT (game_id, ply) DO NOTHING
  RETURNING game_id
), lapse AS (
  UPDATE draw_offers d SET status = 'expired', answered_at = now()
    FROM i JOIN mv ON mv.game_id = i.game_id
   WHERE d.game_id = i.game_id AND d.status = 'pending' AND d.offered_by <> i.mover_id
), lapse_takeback AS (
  UPDATE takeback_offers t SET status = 'expired', answered_at = now()
    FROM mv WHERE t.game_id = mv.game_id AND t.status = 'pending'
)
SELECT game_id FROM mv`;

/** The statement writing `writes` (lean or snapshot), named by its kind and row count so each is prepared once per connection. */
function batchStatement(writes: readonly MoveWrite[], snapshot: boolean): { name: string; text: string; params: unknown[] } {
  const columns = snapshot ? SNAPSHOT_COLUMNS : MOVE_COLUMNS;
  const name = `${snapshot ? 'move-snapshot' : 'move-lean'}-${writes.length > VALUES_MAX ? 'n' : writes.length}`;
  let text = statementTexts.get(name);
  if (text === undefined) statementTexts.set(name, (text = (snapshot ? snapshotSql : leanSql)(rowsFrom(columns, writes.length))));
  return { name, text, params: rowParams(columns, writes) };
}

/** Each statement's text, built once (every batch of a size names the same statement). */
const statementTexts = new Map<string, string>();

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
  /** Urgent writes in the queue: while there is one, the next batch does not wait. */
  private urgentQueued = 0;
  /** The game of every write queued or being written, and since when (clock ms). */
  private readonly outstanding = new Map<string, number>();
  private inFlight = 0;
  /** The next batch leaves at the end of this turn of the event loop. */
  private leaving = false;
  /** The next batch waits in the commit window until this timer fires. */
  private windowTimer: TimerHandle | undefined;
  private readonly clock: Clock;
  private readonly deadlineMs: number;
  private readonly maxBatch: number;
  // One batch at a time: moves arriving meanwhile wait and leave together, so under load the
  // batches grow instead of the number of round trips (each one a write syscall and a commit).
  private readonly maxInFlight: number;
  /** How long after a batch leaves the next one may wait for more moves (ms; MOVE_COMMIT_WINDOW_MS). */
  readonly commitWindowMs: number;
  /** When the last batch left (clock ms). */
  private lastSentAt = -Infinity;

  /** Called with every batch statement's duration (ms), landed or not: the metrics' histogram. */
  onBatch: (ms: number, moves: number) => void = () => {};

  /** Batches and moves written (the benchmark's batch size), and what failed, for the metrics. */
  readonly stats = {
    batches: 0,
    moves: 0,
    /** Batch statements that committed, each its own transaction (a batch of both kinds is two). */
    commits: 0,
    /** Batch statements that failed as a whole (timeout, connection): every write in them rejected. */
    failedBatches: 0,
    /** Of those, cancelled by statement_timeout or given up at the writer's deadline. */
    timeouts: 0,
    /** Writes rejected alone for a value or constraint PostgreSQL refused. */
    badRows: 0,
  };

  constructor(
    private readonly pool: Pool,
    o: { clock?: Clock; deadlineMs?: number; maxBatch?: number; maxInFlight?: number; commitWindowMs?: number } = {},
  ) {
    // The clock times the commit window as well as the deadline: tests drive both with a manual one.
    this.clock = o.clock ?? systemClock;
    this.deadlineMs = o.deadlineMs ?? writeDeadlineMs(15_000);
    this.maxBatch = o.maxBatch ?? 500;
    this.maxInFlight = o.maxInFlight ?? 1;
    this.commitWindowMs = o.commitWindowMs ?? 0;
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
   * the write reaches GameActor's persist, which gives the game back to PostgreSQL (markLost):
   * the safe end for a game whose memory cannot be trusted.
   *
   * An urgent write never waits in the commit window, and takes the batch waiting there with it.
   */
  write(write: MoveWrite, o: WriteOptions = {}): Promise<boolean> {
    if (this.outstanding.has(write.gameId)) {
      return Promise.reject(new Error(`move writer: game ${write.gameId} sent a write while its previous one is outstanding`));
    }
    this.outstanding.set(write.gameId, this.clock.now());
    const settled = () => this.outstanding.delete(write.gameId);
    const urgent = o.urgent === true;
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ write, urgent, resolve, reject });
      if (urgent) this.urgentQueued++;
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

  /**
   * Sends the next batch once the current one is done: at the end of this turn of the event loop
   * (which gathers every move that arrived in it), unless the commit window holds it. The window
   * opens when a batch leaves: for `commitWindowMs` after that, the next batch waits for more
   * moves, and leaves when the window closes (or when the batch before it commits, if later).
   * Under load that makes a commit carry more moves instead of adding commits: a commit's fixed
   * cost (a round trip, a WAL flush) was most of a move's PostgreSQL CPU at a human pace, ~270 µs
   * for a lone append against ~110 µs a move in batches of four (loadtest/gameWrites.ts). A move
   * after a quiet spell leaves at once, and no batch waits longer than the window, even on a
   * clock set back. A batch leaves at once, the window or not, when it is full or carries an
   * urgent write (a correspondence move: days apart, nothing to wait for). The promise does not
   * change: a move is acknowledged once its batch commits. Off by default (MOVE_COMMIT_WINDOW_MS=0):
   * under the bench at 1,000 games a 10 ms pacing halved the commits without a measurable change
   * in PostgreSQL's CPU per move (docs/benchmarks.md).
   */
  private schedule(): void {
    if (this.leaving || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    const wait = this.windowLeft();
    if (wait > 0) {
      // The window closes at the same instant for every move that joins the batch meanwhile.
      this.windowTimer ??= this.clock.setTimeout(() => {
        this.windowTimer = undefined;
        void this.flush();
      }, wait);
      return;
    }
    this.clock.clearTimeout(this.windowTimer);
    this.windowTimer = undefined;
    this.leaving = true;
    setImmediate(() => {
      this.leaving = false;
      void this.flush();
    });
  }

  /** How much longer the next batch may wait for more moves (ms); 0 or less: it leaves now. */
  private windowLeft(): number {
    if (this.urgentQueued > 0 || this.queue.length >= this.maxBatch) return 0;
    return Math.min(this.commitWindowMs, this.lastSentAt + this.commitWindowMs - this.clock.now());
  }

  private async flush(): Promise<void> {
    if (this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    for (const p of batch) if (p.urgent) this.urgentQueued--;
    this.lastSentAt = this.clock.now();
    // The batch's duration is the database's work, a metric in real time.
    const started = performance.now();
    this.inFlight++;
    this.stats.batches++;
    this.stats.moves += batch.length;
    const deadlineAt = this.clock.now() + this.deadlineMs;
    try {
      // Each kind is a statement and a commit of its own, and is isolated alone: a landed
      // snapshot move written again would find its ply taken and be read as fenced out.
      const snapshots = batch.filter((p) => writesSnapshot(p.write));
      const lean = snapshots.length === 0 ? batch : batch.filter((p) => !writesSnapshot(p.write));
      if (snapshots.length > 0) await this.writeIsolating(snapshots, true, deadlineAt);
      if (lean.length > 0) await this.writeIsolating(lean, false, deadlineAt);
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
  private async writeIsolating(batch: Pending[], snapshot: boolean, deadlineAt: number): Promise<void> {
    try {
      const landed = await this.writeBatch(batch.map((p) => p.write), snapshot, deadlineAt);
      for (const p of batch) p.resolve(landed.has(p.write.gameId));
    } catch (error) {
      if (isDataError(error) && batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        await this.writeIsolating(batch.slice(0, half), snapshot, deadlineAt);
        await this.writeIsolating(batch.slice(half), snapshot, deadlineAt);
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

  /** Writes moves of one kind (snapshot or lean) in one statement; resolves with the games whose move landed. */
  private async writeBatch(writes: MoveWrite[], snapshot: boolean, deadlineAt: number): Promise<Set<string>> {
    const { name, text, params } = batchStatement(writes, snapshot);
    const { rows } = await this.query(deadlineAt, { name, text }, params);
    this.stats.commits++;
    return new Set(rows.map((r) => r.game_id as string));
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
