// `npm run puzzles:import -- <file.csv[.zst]> [--batch-size N]`: loads a Lichess puzzle dump
// (database.lichess.org, `lichess_db_puzzle.csv.zst`) into the service's database, streaming, in
// batches, with a progress bar. Running it again with the same file changes nothing; a newer dump
// updates ratings, popularity and plays. The database is the service's: DATABASE_URL, else the
// embedded one in DATA_DIR (stop `npm start` first: one embedded server per data directory).
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import { ConfigError, loadConfig } from './config.ts';
import { startEmbeddedPostgres } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { createPool } from './db/pool.ts';
import { createLogger } from './logger.ts';
import { importPuzzleFile, type ImportStats } from './services/puzzleImport.ts';

const USAGE = 'usage: npm run puzzles:import -- <lichess_db_puzzle.csv | lichess_db_puzzle.csv.zst> [--batch-size 10000]';
const SKIPS_SHOWN = 20;

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { 'batch-size': { type: 'string' } } });
  const batchSize = Number(values['batch-size'] ?? 10_000);
  if (positionals.length !== 1 || !Number.isInteger(batchSize) || batchSize < 1 || batchSize > 100_000) {
    console.error(USAGE);
    return 2;
  }
  const file = positionals[0]!;
  const config = loadConfig();
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);

  let databaseUrl = config.databaseUrl;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!databaseUrl) {
    const embedded = await startEmbeddedPostgres(`${config.dataDir}/pg`, log);
    databaseUrl = embedded.url;
    stopEmbedded = embedded.stop;
  }
  // No statement timeout: a batch's upsert into millions of rows may take longer than the live
  // path's statements are allowed to.
  const pool = createPool(databaseUrl, 2, { statementTimeoutMs: 0 });
  const bar = new SingleBar({
    format: 'puzzles |{bar}| {percentage}% | {read}/{size} MB | {rows} rows, {rate} rows/s | ETA {eta_formatted}',
    hideCursor: true,
    // Without a terminal (a log file, CI) a line every 10 s instead of a redrawn bar.
    noTTYOutput: true,
    notTTYSchedule: 10_000,
    etaBuffer: 50,
  });
  const skips: string[] = [];
  // The rate shown to the operator is of real time: this command runs alone, with no service clock.
  const started = performance.now();
  let size = 0;
  const payload = (s: Pick<ImportStats, 'bytes' | 'rows'>) => ({
    read: (s.bytes / 1e6).toFixed(0),
    size: (size / 1e6).toFixed(0),
    rows: s.rows.toLocaleString('en'),
    rate: Math.round(s.rows / ((performance.now() - started) / 1000)).toLocaleString('en'),
  });
  try {
    await migrate(pool);
    size = statSync(file).size;
    bar.start(size, 0, payload({ bytes: 0, rows: 0 }));
    const stats = await importPuzzleFile(pool, file, {
      batchSize,
      onBatch: (s) => bar.update(s.bytes, payload(s)),
      onSkip: (row, id, reason) => {
        if (skips.length < SKIPS_SHOWN) skips.push(`  row ${row} (${id || 'no id'}): ${reason}`);
      },
    });
    bar.update(size, payload(stats));
    bar.stop();
    const seconds = (performance.now() - started) / 1000;
    const n = (x: number) => x.toLocaleString('en');
    console.log(
      `${file}: ${n(stats.rows)} rows in ${seconds.toFixed(1)} s — ${n(stats.inserted)} new, ${n(stats.updated)} updated, ` +
        `${n(stats.unchanged)} unchanged, ${n(stats.skipped)} skipped (sha256 ${stats.sha256})`,
    );
    if (stats.skipped) console.log([`skipped rows (the first ${Math.min(SKIPS_SHOWN, stats.skipped)}):`, ...skips].join('\n'));
    return 0;
  } catch (error) {
    bar.stop();
    console.error(`import failed: ${(error as Error).message}`);
    console.error('batches written before the failure are kept; running the import again is safe.');
    return 1;
  } finally {
    await pool.end();
    await stopEmbedded?.();
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exitCode = 1;
}
