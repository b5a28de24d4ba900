import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Pool } from '../../src/db/pool.ts';
import { createPool } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { BUNDLED_PUZZLES, importPuzzleFile, loadBundledPuzzles, type ImportStats } from '../../src/services/puzzleImport.ts';
import { createDatabase } from '../support/database.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { testService } from '../helpers/service.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ZST_SAMPLE = path.join(ROOT, 'test/fixtures/lichess_puzzles_sample.csv.zst');
const SAMPLE_LINES = readFileSync(BUNDLED_PUZZLES, 'utf8').trimEnd().split('\n');
const HEADER = SAMPLE_LINES[0]!;
const line = (id: string) => SAMPLE_LINES.find((l) => l.startsWith(`${id},`))!;
/** A CSV line with some columns (by index) replaced. */
const withColumns = (l: string, changes: Record<number, string>) => l.split(',').map((v, i) => changes[i] ?? v).join(',');
const log = createLogger('silent');

/** Every stored field of every puzzle, in id order: two equal snapshots are the same table. */
const snapshot = async (pool: Pool) => (await pool.query('SELECT * FROM puzzles ORDER BY id')).rows;
const count = async (pool: Pool) => (await pool.query('SELECT count(*)::int AS n FROM puzzles')).rows[0].n;

function tempCsv(lines: string[]): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'puzzles-')), 'puzzles.csv');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('importing puzzles', () => {
  const dbs: Array<{ pool: Pool; drop: () => Promise<void> }> = [];
  const database = async () => {
    const db = await isolatedDatabase();
    dbs.push(db);
    return db.pool;
  };
  after(() => Promise.all(dbs.map((d) => d.drop())));

  it('loads the bundled sample once per database, recorded by its sha256, skipping the 7 rows that are no puzzles', async () => {
    const pool = await database();
    const first = await loadBundledPuzzles(pool, log);
    assert.deepEqual(first, { bytes: 268_703, rows: 1499, inserted: 1492, updated: 0, unchanged: 0, skipped: 7 });
    assert.equal(await loadBundledPuzzles(pool, log), undefined);
    assert.equal(await count(pool), 1492);
    const { rows } = await pool.query(`SELECT sha256, rows FROM puzzle_imports WHERE source = 'bundled-sample'`);
    assert.deepEqual(rows, [{ sha256: '4ca7e935cc5f4ba5e6fa8848f7a7641b784112c0092bc2a4a5bb76fce257b100', rows: 1492 }]);
  });

  it('loads the bundled sample once when nodes boot together', async () => {
    const pool = await database();
    const results = await Promise.all([1, 2, 3].map(() => loadBundledPuzzles(pool, log)));
    assert.deepEqual(results.filter(Boolean).map((r) => r!.inserted), [1492]);
    assert.equal(await count(pool), 1492);
  });

  it('leaves puzzles the database already has as they are when it loads the sample', async () => {
    const pool = await database();
    await importPuzzleFile(pool, tempCsv([HEADER, withColumns(line('002X3'), { 3: '1111' })]), {});
    await loadBundledPuzzles(pool, log);
    const { rows } = await pool.query(`SELECT rating FROM puzzles WHERE id = '002X3'`);
    assert.equal(rows[0].rating, 1111);
  });

  it('gives the same table when the same file is imported twice, and says nothing changed', async () => {
    const pool = await database();
    const first = await importPuzzleFile(pool, BUNDLED_PUZZLES, {});
    const before = await snapshot(pool);
    const second = await importPuzzleFile(pool, BUNDLED_PUZZLES, {});
    assert.deepEqual(await snapshot(pool), before);
    assert.deepEqual([first.inserted, first.updated, first.unchanged, first.skipped], [1492, 0, 0, 7]);
    assert.deepEqual([second.inserted, second.updated, second.unchanged, second.skipped], [0, 0, 1492, 7]);
    assert.equal(before.length, 1492);
  });

  it('reads a Zstandard file, fed in small chunks, into the same table as the plain CSV', async () => {
    const [plain, compressed] = [await database(), await database()];
    await importPuzzleFile(plain, BUNDLED_PUZZLES, {});
    const stats = await importPuzzleFile(compressed, ZST_SAMPLE, { chunkBytes: 4096 });
    assert.equal(stats.bytes, readFileSync(ZST_SAMPLE).length);
    assert.deepEqual(await snapshot(compressed), await snapshot(plain));
  });

  it('takes a newer dump’s rating, popularity and plays, adds new puzzles once, and keeps a live rating whose row did not change', async () => {
    const pool = await database();
    await importPuzzleFile(pool, BUNDLED_PUZZLES, {});
    // 001KR was played here since: its live rating moved, its row in the dump did not.
    await pool.query(`UPDATE puzzles SET rating = 1234.5, plays_here = 3 WHERE id = '001KR'`);
    const newer = tempCsv([
      HEADER,
      withColumns(line('002X3'), { 3: '1100', 4: '90', 5: '90', 6: '25' }),
      line('001KR'),
      withColumns(line('000rZ'), { 0: 'newP1' }),
      withColumns(line('000rZ'), { 0: 'newP2', 3: '800' }),
      withColumns(line('000rZ'), { 0: 'newP2', 3: '900' }),
    ]);
    const stats = await importPuzzleFile(pool, newer, {});
    assert.deepEqual([stats.inserted, stats.updated, stats.unchanged], [2, 1, 1]);
    assert.equal(await count(pool), 1494);
    const { rows } = await pool.query(
      `SELECT id, rating, rating_deviation, imported_rating, popularity, imported_plays + plays_here AS plays FROM puzzles
        WHERE id IN ('002X3', '001KR', 'newP2') ORDER BY id`,
    );
    assert.deepEqual(rows, [
      { id: '001KR', rating: 1234.5, rating_deviation: 81, imported_rating: 588, popularity: 100, plays: 180 },
      { id: '002X3', rating: 1100, rating_deviation: 90, imported_rating: 1100, popularity: 90, plays: 25 },
      // A puzzle twice in one file counts once, as its last row says.
      { id: 'newP2', rating: 900, rating_deviation: 93, imported_rating: 900, popularity: 100, plays: 616 },
    ]);
  });

  it('skips the rows that are no puzzles, reporting each with its row number, and imports the rest', async () => {
    const pool = await database();
    const skipped: Array<[number, string, string]> = [];
    const stats = await importPuzzleFile(pool, tempCsv([HEADER, line('000rZ'), withColumns(line('001KR'), { 2: 'h8g8 a1a2' }), 'short,row', line('002X3')]), {
      onSkip: (row, id, reason) => skipped.push([row, id, reason]),
    });
    assert.deepEqual([stats.rows, stats.inserted, stats.skipped], [4, 2, 2]);
    assert.deepEqual(
      skipped.map(([row, id]) => [row, id]),
      [
        [2, '001KR'],
        [3, 'short'],
      ],
    );
    assert.match(skipped[0]![2], /move 2 \(a1a2\)/);
  });

  it('refuses a file without the format’s columns, writing nothing', async () => {
    const pool = await database();
    await assert.rejects(importPuzzleFile(pool, tempCsv(['PuzzleId,FEN,Moves', 'abcde,x,y']), {}), /lacks Rating, RatingDeviation/);
    await assert.rejects(importPuzzleFile(pool, tempCsv(['not,a,puzzle', '1,2,3']), {}), /not a Lichess puzzle CSV/);
    assert.equal(await count(pool), 0);
  });

  it('commits batch after batch as it reads', async () => {
    const pool = await database();
    const seen: ImportStats[] = [];
    await importPuzzleFile(pool, BUNDLED_PUZZLES, { batchSize: 100, onBatch: (s) => seen.push({ ...s }) });
    assert.equal(seen.length, 15);
    assert.deepEqual(
      seen.map((s) => s.inserted),
      [...Array.from({ length: 14 }, (_, i) => (i + 1) * 100), 1492],
    );
  });

  describe('npm run puzzles:import', () => {
    let db: { url: string; drop: () => Promise<void> };
    before(async () => {
      db = await createDatabase((await testService()).db.serverUrl);
    });
    after(() => db.drop());

    const run = (...args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/importPuzzles.ts', ...args], {
          cwd: ROOT,
          env: { ...process.env, DATABASE_URL: db.url, LOG_LEVEL: 'warn', DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'puzzles-cli-')) },
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (c) => (out += c));
        child.stderr.on('data', (c) => (err += c));
        child.on('exit', (code) => resolve({ code, out, err }));
      });

    it('migrates the database and imports a .zst file, then finds nothing to change on a second run', async () => {
      const first = await run(ZST_SAMPLE);
      assert.equal(first.code, 0, first.err);
      assert.match(first.out, /1,499 rows in [\d.]+ s — 1,492 new, 0 updated, 0 unchanged, 7 skipped/);
      assert.match(first.out, /row 581 \(4990\): PuzzleId/);
      const second = await run(ZST_SAMPLE);
      assert.match(second.out, /0 new, 0 updated, 1,492 unchanged, 7 skipped/);
      const pool = createPool(db.url, 1);
      try {
        assert.equal(await count(pool), 1492);
      } finally {
        await pool.end();
      }
    });

    it('fails with a message and exit code 1 on a file it cannot read, and 2 without a file', async () => {
      const missing = await run('/nonexistent/puzzles.csv');
      assert.equal(missing.code, 1);
      assert.match(missing.err, /import failed: .*no such file/);
      const usage = await run();
      assert.equal(usage.code, 2);
      assert.match(usage.err, /usage: npm run puzzles:import/);
    });
  });
});
