/**
 * Benchmark: durable moves through GameRooms against real PostgreSQL, and the server's CPU per
 * move next to a tight chess.js loop (move + isGameOver + fen) over the same moves, measured in
 * the same run. Prints one JSON report.
 *
 *   npx tsx loadtest/moves.ts [--games 200] [--plies 60] [--idle-seconds 10]
 *
 * The server runs as a child process (so its CPU is its own, read from /proc); players are
 * Colyseus SDK clients in this process. DATABASE_URL names the PostgreSQL server to use (a fresh
 * database is created and dropped); without it the embedded one is used.
 */
import '../src/polyfills.ts';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { Room } from '@colyseus/sdk';
import { createDatabase } from '../test/support/database.ts';
import { startServiceProcess } from '../test/support/process.ts';
import { joinGames, setupGames } from './setup.ts';
import { chessJsLoop, randomGame, type Uci } from './lines.ts';
import { postgresCpu, processCpu } from './cpu.ts';
import { percentiles } from '../test/support/percentiles.ts';
import { arg } from './args.ts';

const GAMES = arg('games', 200);
const PLIES = arg('plies', 60);
/** After the moves, how long to watch the server hold every game live with nobody moving. */
const IDLE_SECONDS = arg('idle-seconds', 10);

async function main() {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const db = await createDatabase(serverUrl);
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // Setting up thousands of games takes longer than the first-move deadline.
  const env = { FIRST_MOVE_SECONDS: '900' };
  const { child: server, port, base, exited } = await startServiceProcess(db.url, { nodeArgs, env });
  try {
    const sequences = Array.from({ length: GAMES }, (_, i) => randomGame(1000 + i, PLIES));
    const games = await setupGames(base, GAMES, 'bench_');
    const rooms = await joinGames(port, games);

    const cpu0 = processCpu(server.pid!);
    const pg0 = postgresCpu();
    const t0 = process.hrtime.bigint();
    const latencies: number[] = [];
    await Promise.all(
      rooms.map(async (r, i) => {
        const moves = sequences[i];
        for (let ply = 0; ply < moves.length; ply++) {
          const room = ply % 2 === 0 ? r.white : r.black;
          const started = performance.now();
          await sendMove(room, moves[ply]);
          latencies.push(performance.now() - started);
        }
      }),
    );
    const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpuS = processCpu(server.pid!) - cpu0;
    const pgS = postgresCpu() - pg0;
    const totalMoves = sequences.reduce((n, s) => n + s.length, 0);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const metric = (name: string) => Number(metrics.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1] ?? NaN);
    const chessUs = chessJsLoop(sequences);
    const serverUs = (cpuS * 1e6) / totalMoves;
    // Every game stays live (clocks running, sockets open): what does holding them cost?
    const idle0 = processCpu(server.pid!);
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const idleCpuPercent = ((processCpu(server.pid!) - idle0) / IDLE_SECONDS) * 100;
    const rssMb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024;
    console.log(
      JSON.stringify(
        {
          benchmark: 'durable moves through GameRooms (WebSocket, real PostgreSQL)',
          node: process.version,
          cpus: os.cpus().length,
          games: GAMES,
          moves: totalMoves,
          wall_s: Number(wallS.toFixed(3)),
          moves_per_s: Math.round(totalMoves / wallS),
          server_cpu_us_per_move: Math.round(serverUs),
          postgres_cpu_us_per_move: Math.round((pgS * 1e6) / totalMoves),
          chessjs_loop_us_per_move: Number(chessUs.toFixed(1)),
          ratio_server_to_chessjs: Number((serverUs / chessUs).toFixed(2)),
          moves_per_db_batch: Number((metric('chess_moves_written_total') / metric('chess_move_batches_total')).toFixed(1)),
          move_latency_ms: percentiles(latencies),
          live_games_held: metric('chess_live_games'),
          idle_server_cpu_percent: Number(idleCpuPercent.toFixed(1)),
          server_rss_mb: Math.round(rssMb),
        },
        null,
        2,
      ),
    );
    await Promise.all(rooms.flatMap((r) => [r.white.leave(), r.black.leave()]));
  } finally {
    server.kill('SIGTERM');
    await exited;
    await db.drop();
  }
}

function sendMove(room: Room, m: Uci): Promise<void> {
  return new Promise((resolve, reject) => {
    const offOk = room.onMessage('move:ok', () => {
      offOk();
      offErr();
      resolve();
    });
    const offErr = room.onMessage('error', (e: { code: string; message: string }) => {
      offOk();
      offErr();
      reject(new Error(`${e.code}: ${e.message}`));
    });
    room.send('move', m);
  });
}

await main();
process.exit(0);
