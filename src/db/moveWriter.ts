import type { Pool } from './pool.ts';

/** One accepted move of one game, as the room hands it to be made durable. */
export type MoveWrite = {
  gameId: string;
  /** The room's lease epoch: the write lands only while the room still owns the game. */
  epoch: number;
  ply: number;
  san: string;
  uci: string;
  fen: string;
  /** What the move appends to the stored PGN movetext. */
  pgnSuffix: string;
  /** The mover's clock right after the move (ms). */
  clockMs: number;
  whiteMs: number;
  blackMs: number;
  clockRunning: boolean;
  turnStartedAt: Date | null;
  firstMoveDeadline: Date | null;
  roomState: Record<string, unknown>;
  eventSeq: number;
  moverId: string;
};

type Pending = { write: MoveWrite; resolve: (landed: boolean) => void; reject: (e: unknown) => void };

// One statement writes a whole batch: the snapshot update is fenced by epoch and by the ply
// (so a write can never land twice or out of order), and only games whose update landed get
// their move row, and lapse the pending draw offer of the opponent (the recipient moved).
const BATCH_SQL = `
WITH i AS (
  SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[],
                       $8::int[], $9::int[], $10::int[], $11::bool[], $12::timestamptz[], $13::timestamptz[],
                       $14::jsonb[], $15::int[], $16::uuid[])
    AS t(game_id, epoch, ply, san, uci, fen, pgn_suffix, clock_ms, white_ms, black_ms, running,
         turn_started, first_deadline, room_state, event_seq, mover_id)
), upd AS (
  UPDATE games g SET fen = i.fen, pgn = g.pgn || i.pgn_suffix, move_count = i.ply,
         white_time_ms = i.white_ms, black_time_ms = i.black_ms, clock_running = i.running,
         turn_started_at = i.turn_started, first_move_deadline = i.first_deadline,
         room_state = i.room_state, event_seq = i.event_seq, last_move_at = now(), updated_at = now()
    FROM i
   WHERE g.id = i.game_id AND g.host_epoch = i.epoch AND g.move_count = i.ply - 1 AND g.status = 'active'
  RETURNING g.id
), mv AS (
  INSERT INTO game_moves (game_id, ply, san, uci, clock_ms)
  SELECT i.game_id, i.ply, i.san, i.uci, i.clock_ms FROM i JOIN upd ON upd.id = i.game_id
), lapse AS (
  UPDATE draw_offers d SET status = 'expired', answered_at = now()
    FROM i JOIN upd ON upd.id = i.game_id
   WHERE d.game_id = i.game_id AND d.status = 'pending' AND d.offered_by <> i.mover_id
)
SELECT id FROM upd`;

/**
 * Group commit for moves: every move of every room in this process that arrives while a batch
 * is being written goes into the next one, so one round trip and one WAL flush carry many moves
 * and durability does not cap throughput. A move is acknowledged only after its batch commits.
 */
export class MoveWriter {
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly pool: Pool,
    private readonly maxBatch = 500,
    // One batch at a time: moves arriving meanwhile wait and leave together, so under load the
    // batches grow instead of the number of round trips (each one a write syscall and a commit).
    private readonly maxInFlight = 1,
  ) {}

  /** Resolves true once durable, false when the write was fenced out (the room lost the game). */
  write(write: MoveWrite): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      this.schedule();
    });
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
    try {
      const landed = await this.writeBatch(batch.map((p) => p.write));
      for (const p of batch) p.resolve(landed.has(p.write.gameId));
    } catch (error) {
      for (const p of batch) p.reject(error);
    } finally {
      this.inFlight--;
      this.schedule();
    }
  }

  /** Batches written and moves in them, for the benchmark's report. */
  readonly stats = { batches: 0, moves: 0 };

  private async writeBatch(writes: MoveWrite[]): Promise<Set<string>> {
    this.stats.batches++;
    this.stats.moves += writes.length;
    const col = <K extends keyof MoveWrite>(k: K) => writes.map((w) => w[k]);
    const { rows } = await this.pool.query(BATCH_SQL, [
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
    ]);
    return new Set(rows.map((r) => r.id as string));
  }
}
