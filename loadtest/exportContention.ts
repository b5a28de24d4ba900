/**
 * Benchmark: what game exports running at once cost the live games of the same node (issue 34,
 * L1: three exports of a 20,000-game player raised move acknowledgements from ~5 ms to 36–94 ms).
 * One game's players play from their Colyseus sockets, a move every --gap-ms (20), a new game every
 * 40 plies, while 0, 1, 2 and 3 clients export a player's --games (20,000) finished games over and
 * over, each reading as fast as it can; per step, the acknowledgement latency of the moves and how
 * the exports were answered. The service runs first with EXPORTS_PER_NODE high enough for all
 * three, then with its default, where the third export is refused (429).
 *
 *   npx tsx loadtest/exportContention.ts [--games 20000] [--seconds 8] [--gap-ms 20]
 *
 * DATABASE_URL names the PostgreSQL server (a fresh database is created and dropped).
 */
import '../src/polyfills.ts';
import http from 'node:http';
import { Client, type Room } from '@colyseus/sdk';
import pg from 'pg';
import { createDatabase } from '../test/support/database.ts';
import { insertFinishedGames, insertUser } from '../test/support/fixtures.ts';
import { startServiceProcess, type ServiceProcess } from '../test/support/process.ts';
import { LINE, newGame, sendMove } from './setup.ts';
import { percentiles } from '../test/support/percentiles.ts';
import { arg } from './args.ts';

const GAMES = arg('games', 20_000);
const SECONDS = arg('seconds', 8);
const GAP_MS = arg('gap-ms', 20);
const log = (line: string) => console.error(line);

const summary = (xs: number[]) => ({ ...percentiles(xs, 1), moves: xs.length });

/** Exports the player's games until `stop`, reading as fast as it can: how each export was answered. */
async function exportLoop(base: string, userId: string, address: string, stop: () => boolean): Promise<{ complete: number; refused: number; bytes: number }> {
  const out = { complete: 0, refused: 0, bytes: 0 };
  while (!stop()) {
    const status = await new Promise<number>((resolve, reject) => {
      http
        .get(`${base}/v1/users/${userId}/games/export`, { headers: { 'x-forwarded-for': address } }, (res) => {
          res.on('data', (chunk: Buffer) => (out.bytes += chunk.length));
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
        .on('error', reject);
    });
    if (status === 200) out.complete++;
    else if (status === 429) {
      out.refused++;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return out;
}

/** Moves for `ms`, one every GAP_MS, White and Black in turn; a new game every 40 plies. Ack latencies in ms. */
async function playFor(service: ServiceProcess, ms: number, tag: string): Promise<number[]> {
  const sdk = new Client(`ws://127.0.0.1:${service.port}`);
  const latencies: number[] = [];
  const until = Date.now() + ms;
  for (let g = 0; Date.now() < until; g++) {
    const game = await newGame(service.base, `${tag}${g}`);
    const rooms: Room[] = [await sdk.joinById(game.id, { token: game.white.token }), await sdk.joinById(game.id, { token: game.black.token })];
    for (const r of rooms) r.onMessage('*', () => {});
    for (let ply = 0; ply < LINE.length && Date.now() < until; ply++) {
      const { sent, ack } = await sendMove(rooms[ply % 2], LINE[ply]);
      latencies.push(ack - sent);
      await new Promise((r) => setTimeout(r, GAP_MS));
    }
    await Promise.all(rooms.map((r) => r.leave(true)));
  }
  return latencies;
}

async function steps(databaseUrl: string, heavy: string, env: Record<string, string>, counts: number[], label: string) {
  // Each exporter its own address (X-Forwarded-For, believed from loopback): its own caller.
  const service = await startServiceProcess(databaseUrl, { env: { TRUST_PROXY: 'loopback', ...env } });
  const report: Record<string, unknown> = {};
  try {
    // A first export warms the heap (see the export benchmark).
    await exportLoop(service.base, heavy, '10.1.0.1', (() => { let n = 0; return () => n++ > 0; })());
    for (const n of counts) {
      let stop = false;
      const exporters = Array.from({ length: n }, (_, i) => exportLoop(service.base, heavy, `10.2.${n}.${i}`, () => stop));
      const latencies = await playFor(service, SECONDS * 1000, `${label}${n}x`);
      stop = true;
      const answers = await Promise.all(exporters);
      report[`${n} exports`] = { ack_ms: summary(latencies), exports: answers };
      log(`${label}, ${n} exports: ${JSON.stringify(report[`${n} exports`])}`);
    }
  } finally {
    service.child.kill('SIGTERM');
    await service.exited;
  }
  return report;
}

async function main() {
  const server = process.env.DATABASE_URL;
  if (!server) throw new Error('DATABASE_URL names the PostgreSQL server');
  const db = await createDatabase(server);
  try {
    // Migrated by a first boot, then the heavy player's games written directly.
    const first = await startServiceProcess(db.url);
    first.child.kill('SIGTERM');
    await first.exited;
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    const heavy = await insertUser(pool as never);
    await insertFinishedGames(pool as never, { whiteId: heavy, blackId: await insertUser(pool as never), count: GAMES, plies: 60, newestEnd: new Date() });
    await pool.end();
    log(`${GAMES} games of one player written`);
    const uncapped = await steps(db.url, heavy, { EXPORTS_PER_NODE: '10', EXPORTS_PER_ADDRESS: '10' }, [0, 1, 2, 3], 'uncapped');
    const capped = await steps(db.url, heavy, {}, [3], 'default');
    console.log(JSON.stringify({ games: GAMES, seconds: SECONDS, gapMs: GAP_MS, uncapped, default_caps: capped }, null, 2));
  } finally {
    await db.drop();
  }
}

await main();
