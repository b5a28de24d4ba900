/**
 * Generates a Lichess puzzle CSV of any size, of the real file's shape: the same 11 columns, the
 * bundled sample's positions and lines (so every row costs the importer what a real one does),
 * each under a new 6-character id (the real ids have 5, so none collides with the sample's),
 * with ratings spread like Lichess's (normal around 1500, 400–3200), deviations, popularity and
 * plays drawn from a seeded generator: the same arguments give the same file.
 *
 *   npx tsx loadtest/puzzleCsv.ts --rows 5000000 --out /tmp/puzzles.csv [--seed 1]
 *   zstd -q /tmp/puzzles.csv            # the .zst the real dump comes as
 */
import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { parsePuzzleRecord, PUZZLE_COLUMNS, type PuzzleCsvRecord } from '../src/domain/puzzles.ts';
import { BUNDLED_PUZZLES } from '../src/services/puzzleImport.ts';
import { arg } from './args.ts';

const ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_SPACE = 62 ** 6;
// A prime that divides neither 2 nor 31: i ↦ i·P mod 62⁶ visits every id once, spread over the space.
const ID_STEP = 2_147_483_647;

/** Row `i`'s id: distinct for every i below 62⁶, in no particular order. */
export function generatedId(i: number): string {
  let n = Number((BigInt(i) * BigInt(ID_STEP)) % BigInt(ID_SPACE));
  let id = '';
  for (let k = 0; k < 6; k++) {
    id = ID_ALPHABET[n % 62] + id;
    n = Math.floor(n / 62);
  }
  return id;
}

/** mulberry32: a small seeded generator, so a run can be repeated exactly. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The sample rows that are puzzles: the templates. */
function templates(): PuzzleCsvRecord[] {
  const records: PuzzleCsvRecord[] = parse(readFileSync(BUNDLED_PUZZLES), { columns: true });
  return records.filter((r) => parsePuzzleRecord(r).ok);
}

/** Writes `rows` generated puzzles to `file` as CSV with the real header (DailyDate included, empty). */
export async function writePuzzleCsv(file: string, rows: number, seed = 1): Promise<void> {
  const rows0 = templates();
  const next = random(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  const clamp = (x: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, Math.round(x)));
  const out = createWriteStream(file, { highWaterMark: 1 << 20 });
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(`${[...PUZZLE_COLUMNS, 'DailyDate'].join(',')}\n`);
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    const t = rows0[i % rows0.length]!;
    const rating = clamp(1500 + 450 * normal(), 400, 3200);
    const deviation = clamp(75 + 20 * Math.abs(normal()), 50, 500);
    const popularity = next() < 0.05 ? clamp(-100 + 180 * next(), -100, 100) : clamp(100 - 12 * Math.abs(normal()), -100, 100);
    const plays = Math.round(Math.exp(5 + 2 * next() + Math.abs(normal())));
    chunk += `${generatedId(i)},${t.FEN},${t.Moves},${rating},${deviation},${popularity},${plays},${t.Themes},${t.GameUrl},${t.OpeningTags},\n`;
    if (chunk.length > 1 << 20) {
      await write(chunk);
      chunk = '';
    }
  }
  await write(chunk);
  out.end();
  await once(out, 'finish');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = arg('rows', 1_000_000);
  const out = arg('out');
  if (!out || !Number.isInteger(rows) || rows < 1) {
    console.error('usage: npx tsx loadtest/puzzleCsv.ts --rows 5000000 --out /tmp/puzzles.csv [--seed 1]');
    process.exit(2);
  }
  const started = performance.now();
  await writePuzzleCsv(out, rows, arg('seed', 1));
  console.log(JSON.stringify({ file: out, rows, seconds: Number(((performance.now() - started) / 1000).toFixed(1)) }));
}
