import * as repo from '../db/analysis.ts';
import type { Pool } from '../db/pool.ts';
import type { PositionEval } from '../domain/gameAnalysis.ts';
import type { Clock } from '../time.ts';

/**
 * A job's findings, written one batch at a time beside the searching: while a write is in
 * flight, the next findings gather for the one after it. `lost` once a write finds the claim
 * gone (another worker has the job).
 */
export class ProgressWriter {
  lost = false;
  private unsaved: PositionEval[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    private readonly d: { pool: Pool; clock: Clock; lockMs: number },
    private readonly job: repo.ClaimedAnalysis,
  ) {}

  add(found: PositionEval): void {
    this.unsaved.push(found);
    this.save();
  }

  /** Resolves once every finding is written (or the claim is lost). */
  async flush(): Promise<void> {
    while (this.writing || (this.unsaved.length && !this.lost)) {
      this.save();
      await this.writing;
    }
  }

  private save(): void {
    if (this.writing || this.lost || this.unsaved.length === 0) return;
    const found = this.unsaved;
    this.unsaved = [];
    const { pool, clock, lockMs } = this.d;
    this.writing = repo
      .recordProgress(pool, { gameId: this.job.gameId, attempt: this.job.attempt, now: clock.now(), lockMs, found })
      .then((held) => {
        if (!held) this.lost = true;
      })
      .finally(() => {
        this.writing = undefined;
      });
  }
}
