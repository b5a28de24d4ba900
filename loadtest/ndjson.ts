/**
 * Benchmark: the game stream over HTTP (NDJSON, DESIGN 2.12) against the WebSocket stream, in the
 * same run: one game watched by --watchers (500) WebSocket spectators, then another game watched
 * by as many NDJSON spectators (chunked HTTP responses), each game --plies (40) moves played from
 * the players' Colyseus sockets, one every ~50 ms. Per transport: every move delivered or not, the
 * latency from the mover's acknowledgement and from the room accepting the move (the event's
 * `ts`) to each receipt, and the server's CPU (from /proc) per delivered message.
 *
 *   npx tsx loadtest/ndjson.ts [--watchers 500] [--plies 40]
 *
 * DATABASE_URL names the PostgreSQL server (a fresh database is created and dropped).
 */
import '../src/polyfills.ts';
import http from 'node:http';
import os from 'node:os';
import { Client } from '@colyseus/sdk';
import WebSocket from 'ws';
import { createDatabase } from '../test/support/database.ts';
import { startServiceProcess } from '../test/support/process.ts';
import { LINE, moveVt, newGame, sendMove } from './setup.ts';
import { processCpu } from './cpu.ts';
import { percentiles } from '../test/support/percentiles.ts';
import { arg } from './args.ts';

const WATCHERS = arg('watchers', 500);
const PLIES = arg('plies', 40);

const summary = (xs: number[]) => ({ ...percentiles(xs), samples: xs.length });

type Watcher = { close: () => void };
type OnMove = (v: number, ts: number, at: number) => void;

function openWs(url: string, onMove: OnMove): Promise<Watcher> {
  const ws = new WebSocket(url);
  ws.on('message', (data) => {
    const m = moveVt(String(data));
    if (m) onMove(m.v, m.ts, performance.now());
  });
  return new Promise((resolve, reject) => (ws.once('open', () => resolve({ close: () => ws.terminate() })), ws.once('error', reject)));
}

function openNdjson(url: string, onMove: OnMove): Promise<Watcher> {
  return new Promise((resolve, reject) => {
    // One connection each, as separate clients would hold them.
    const req = http.get(url, { agent: false, headers: { accept: 'application/x-ndjson' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
      res.setEncoding('utf8');
      let rest = '';
      res.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        const at = performance.now();
        for (const line of lines) {
          const m = moveVt(line);
          if (m) onMove(m.v, m.ts, at);
        }
      });
      res.on('error', () => {});
      resolve({ close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

async function watchOneGame(base: string, port: number, pid: number, transport: 'websocket' | 'ndjson') {
  const game = await newGame(base, transport === 'ndjson' ? 'nd_h' : 'nd_w');
  const received = new Map<number, number[]>(); // v → receipt times
  const sinceEvent: number[] = [];
  const onMove: OnMove = (v, ts, at) => {
    (received.get(v) ?? received.set(v, []).get(v)!).push(at);
    if (!Number.isNaN(ts)) sinceEvent.push(Date.now() - ts);
  };
  const open = transport === 'ndjson' ? () => openNdjson(`${base}/v1/games/${game.id}/stream`, onMove) : () => openWs(`ws://127.0.0.1:${port}/v1/games/${game.id}/stream`, onMove);
  const watchers: Watcher[] = [];
  for (let i = 0; i < WATCHERS; i += 100) watchers.push(...(await Promise.all(Array.from({ length: Math.min(100, WATCHERS - i) }, open))));
  const sdk = new Client(`ws://127.0.0.1:${port}`);
  const white = await sdk.joinById(game.id, { token: game.white.token });
  const black = await sdk.joinById(game.id, { token: game.black.token });
  const acks = new Map<number, { sent: number; ack: number }>();
  const cpu0 = processCpu(pid);
  for (const [i, uci] of LINE.slice(0, PLIES).entries()) {
    acks.set(i + 1, await sendMove(i % 2 === 0 ? white : black, uci));
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 500));
  const cpuS = processCpu(pid) - cpu0;
  const latencies = [...acks].flatMap(([v, t]) => (received.get(v) ?? []).map((at) => at - t.ack));
  for (const w of watchers) w.close();
  await Promise.all([white.leave(), black.leave()]);
  return {
    transport,
    watchers: WATCHERS,
    moves: acks.size,
    missing: acks.size * WATCHERS - latencies.length,
    ack_to_receipt_ms: summary(latencies),
    accepted_to_receipt_ms: summary(sinceEvent),
    // Each move reaches every spectator as two messages (move and its time_update).
    server_cpu_us_per_delivered_message: Number(((cpuS * 1e6) / (latencies.length * 2)).toFixed(2)),
  };
}

async function main() {
  const db = await createDatabase(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const { child: server, port, base, exited } = await startServiceProcess(db.url, { env: { FIRST_MOVE_SECONDS: '900' } });
  try {
    const websocket = await watchOneGame(base, port, server.pid!, 'websocket');
    const ndjson = await watchOneGame(base, port, server.pid!, 'ndjson');
    console.log(
      JSON.stringify(
        { benchmark: 'game stream: NDJSON over HTTP vs WebSocket (real PostgreSQL, subscribers in this process)', node: process.version, cpus: os.cpus().length, websocket, ndjson },
        null,
        2,
      ),
    );
  } finally {
    server.kill('SIGTERM');
    await exited;
    await db.drop();
  }
}

await main();
process.exit(0);
