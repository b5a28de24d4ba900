import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse';
import { Decompress } from 'fzstd';
import { withTransaction, type Pool, type PoolClient } from '../db/pool.ts';
import * as repo from '../db/puzzles.ts';
import { missingColumns, parsePuzzleRecord, PUZZLE_COLUMNS, type PuzzleCsvRecord, type PuzzleData } from '../domain/puzzles.ts';
import type { Logger } from '../logger.ts';

export const BUNDLED_PUZZLES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'assets', 'puzzles', 'lichess_puzzles_sample.csv');
const BUNDLED_SOURCE = 'bundled-sample';
/** Taken while the bundled sample is loaded, so nodes that boot together load it once. */
const BUNDLED_LOCK_KEY = 727_012;

export type ImportStats = {
  /** Bytes of the file read so far (compressed bytes for a .zst file). */
  bytes: number;
  /** Data rows read so far. */
  rows: number;
  inserted: number;
  updated: number;
  unchanged: number;
  skipped: number;
};

export type ImportOptions = {
  mode: repo.ImportMode;
  /** Rows per COPY and upsert. */
  batchSize?: number;
  /** `batch`: each batch commits on its own (a long import keeps what it did); `caller`: the caller's transaction holds all. */
  commit: 'batch' | 'caller';
  /** After each batch is written. */
  onBatch?: (stats: Readonly<ImportStats>) => void;
  /** A row that is no puzzle: its 1-based data row number, its id as given, why. */
  onSkip?: (row: number, id: string, reason: string) => void;
};

/** A puzzle file opened for reading: its CSV text (decompressed), its size, what has been read of it. */
export type PuzzleFile = { csv: Readable; size: number; bytesRead: () => number; sha256: () => string };

/** Opens a Lichess puzzle CSV, plain or Zstandard-compressed (`.zst`), as a stream: never read whole. */
export function openPuzzleFile(file: string, o: { chunkBytes?: number } = {}): PuzzleFile {
  const size = statSync(file).size;
  const hash = createHash('sha256');
  let bytes = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  const raw = createReadStream(file, { highWaterMark: o.chunkBytes ?? 1 << 20 });
  raw.on('error', (error) => counted.destroy(error));
  let csv: Readable = raw.pipe(counted);
  if (file.endsWith('.zst')) {
    const unzstd = zstdDecompressor();
    counted.on('error', (error) => unzstd.destroy(error));
    csv = counted.pipe(unzstd);
  }
  let digest: string | undefined;
  return { csv, size, bytesRead: () => bytes, sha256: () => (digest ??= hash.digest('hex')) };
}

/** fzstd's push-style decompressor as a stream (pure JavaScript: nothing native to install). */
function zstdDecompressor(): Transform {
  const out: Transform = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      try {
        decompressor.push(chunk);
        done();
      } catch (error) {
        done(error as Error);
      }
    },
    flush(done) {
      try {
        decompressor.push(new Uint8Array(0), true);
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  });
  // fzstd may hand out views of its own window: copy each before it moves on.
  const decompressor = new Decompress((data) => void out.push(Buffer.from(data)));
  return out;
}

/**
 * Reads puzzles from CSV text and writes them in batches (COPY into a staging table, then one
 * upsert each). Parsing the next batch overlaps the database writing the previous one. Rows that
 * are not puzzles are skipped and reported; a file that is not CSV, or lacks a column of the
 * format, stops the import (batches already committed stay: running it again is harmless).
 */
export async function importPuzzleCsv(client: PoolClient, csv: Readable, o: ImportOptions & { bytesRead?: () => number }): Promise<ImportStats> {
  const batchSize = o.batchSize ?? 10_000;
  const stats: ImportStats = { bytes: 0, rows: 0, inserted: 0, updated: 0, unchanged: 0, skipped: 0 };
  const parser = csv.pipe(
    parse({
      bom: true,
      skip_empty_lines: true,
      // Older dumps have 10 columns, newer ones 11 (DailyDate); a short row fails its own checks.
      relax_column_count: true,
      columns: (header: string[]) => {
        const missing = missingColumns(header);
        if (missing.length) throw new Error(`not a Lichess puzzle CSV: the header lacks ${missing.join(', ')}`);
        return header;
      },
    }),
  );
  csv.on('error', (error) => parser.destroy(error));

  const write = async (batch: PuzzleData[]) => {
    const outcome =
      o.commit === 'batch' ? await inTransaction(client, () => repo.importBatch(client, batch, o.mode)) : await repo.importBatch(client, batch, o.mode);
    stats.inserted += outcome.inserted;
    stats.updated += outcome.updated;
    stats.unchanged += outcome.unchanged;
    stats.bytes = o.bytesRead?.() ?? stats.bytes;
    o.onBatch?.(stats);
  };

  let batch: PuzzleData[] = [];
  let writing: Promise<void> = Promise.resolve();
  for await (const record of parser as AsyncIterable<Record<string, string | undefined>>) {
    stats.rows++;
    const parsed = parsePuzzleRecord(completeRecord(record));
    if (!parsed.ok) {
      stats.skipped++;
      o.onSkip?.(stats.rows, parsed.error.id, parsed.error.reason);
      continue;
    }
    batch.push(parsed.value);
    if (batch.length >= batchSize) {
      await writing;
      writing = write(batch);
      // Observed at the next await; until then its failure must not count as unhandled.
      writing.catch(() => {});
      batch = [];
    }
  }
  await writing;
  if (batch.length) await write(batch);
  stats.bytes = o.bytesRead?.() ?? stats.bytes;
  return stats;
}

/** Columns a short row lacks read as empty, so the row fails on its own field's check. */
const completeRecord = (r: Record<string, string | undefined>): PuzzleCsvRecord =>
  Object.fromEntries(PUZZLE_COLUMNS.map((c) => [c, r[c] ?? ''])) as PuzzleCsvRecord;

async function inTransaction<T>(client: PoolClient, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * Imports a puzzle file with a connection of its own (an operator's command: every batch
 * commits, then the planner's statistics are refreshed and the import recorded by file name).
 */
export async function importPuzzleFile(
  pool: Pool,
  file: string,
  o: Omit<ImportOptions, 'commit' | 'mode'> & { mode?: repo.ImportMode; chunkBytes?: number },
): Promise<ImportStats & { sha256: string }> {
  const opened = openPuzzleFile(file, { chunkBytes: o.chunkBytes });
  const client = await pool.connect();
  try {
    const stats = await importPuzzleCsv(client, opened.csv, { ...o, mode: o.mode ?? 'upsert', commit: 'batch', bytesRead: opened.bytesRead });
    await repo.analyzePuzzles(client);
    await repo.recordImport(client, path.basename(file), opened.sha256(), stats.rows - stats.skipped);
    return { ...stats, sha256: opened.sha256() };
  } finally {
    opened.csv.destroy();
    client.release();
  }
}

/**
 * Loads the bundled sample (assets/puzzles) into a database that has not got this version of it:
 * puzzles it lacks are added, puzzles it has are left as they are (a full import may have brought
 * newer figures). One transaction, under a lock: nodes booting at once load it once, and a crash
 * halfway leaves nothing behind. Runs at every boot after the migrations; a no-op once recorded.
 */
export async function loadBundledPuzzles(pool: Pool, log: Logger, file = BUNDLED_PUZZLES): Promise<ImportStats | undefined> {
  const sha256 = await fileSha256(file);
  if ((await repo.findImport(pool, BUNDLED_SOURCE))?.sha256 === sha256) return undefined;
  return withTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [BUNDLED_LOCK_KEY]);
    if ((await repo.findImport(client, BUNDLED_SOURCE))?.sha256 === sha256) return undefined;
    const opened = openPuzzleFile(file);
    try {
      const stats = await importPuzzleCsv(client, opened.csv, {
        mode: 'missing',
        commit: 'caller',
        bytesRead: opened.bytesRead,
        // Known rows of the sample (mangled ids, see assets/puzzles): the count below says how many.
        onSkip: (row, id, reason) => log.debug({ row, id, reason }, 'bundled puzzle skipped'),
      });
      await repo.recordImport(client, BUNDLED_SOURCE, sha256, stats.rows - stats.skipped);
      log.info({ inserted: stats.inserted, skipped: stats.skipped }, 'bundled puzzles loaded');
      return stats;
    } finally {
      opened.csv.destroy();
    }
  });
}

async function fileSha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
