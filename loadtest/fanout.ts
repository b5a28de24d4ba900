/**
 * Benchmark: how fast a move reaches the spectators of the game stream, and what it costs.
 *   (a) one game watched by --watchers (1,000) stream sockets;
 *   (b) --games (1,000) games, one stream socket each.
 * Latency is from the move's acknowledgement (the mover's `move:ok`, or the REST answer) to the
 * receipt of the `move` message by each subscriber, p50/p99 — negative when the spectators have it
 * before the mover has its answer (the room publishes, then answers) — and, as an upper bound that
 * includes making the move durable, from the moment the move was sent. The server's CPU is read
 * from /proc and divided by the messages it delivered. The baseline, measured in the same run: a bare `ws`
 * server in a child process broadcasting a message of the same size to as many sockets.
 *
 *   npx tsx loadtest/fanout.ts [--watchers 1000] [--games 1000] [--plies 40] [--move-every-ms 5000]
 *
 * `accepted_to_receipt_ms` runs from the event's `ts` (the room's clock when it accepted the move,
 * before making it durable) to the receipt: server and subscribers share this machine's clock.
 *
 * DATABASE_URL names the PostgreSQL server (a fresh database is created and dropped).
 */
import '../src/polyfills.ts';
import { spawn } from 'node:child_process';
import os from 'node:os';
import { Client } from '@colyseus/sdk';
import WebSocket from 'ws';
import { createDatabase } from '../test/support/database.ts';
import { requestJson, startServiceProcess } from '../test/support/process.ts';
import { LINE, moveVt, newGame, sendMove, setupGames } from './setup.ts';
import { freePort } from '../src/util/net.ts';
import { processCpu } from './cpu.ts';
import { percentiles } from '../test/support/percentiles.ts';
import { arg } from './args.ts';

const WATCHERS = arg('watchers', 1000);
const GAMES = arg('games', 1000);
const PLIES = arg('plies', 40);
/** (b): how often each game moves. */
const MOVE_EVERY_MS = arg('move-every-ms', 5000);

const summary = (xs: number[]) => ({ ...percentiles(xs), samples: xs.length });

/** Milliseconds from the event's `ts` (the room's clock when it accepted the move: this machine's) to now. */
const sinceEvent: number[] = [];

async function openStreams(url: string, count: number, onMove: (i: number, v: number, at: number) => void): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (let i = 0; i < count; i += 100) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(100, count - i) }, (_, j) => {
        const ws = new WebSocket(typeof url === 'string' ? url : url);
        const index = i + j;
        ws.on('message', (data) => {
          const m = moveVt(String(data));
          if (!m) return;
          if (!Number.isNaN(m.ts)) sinceEvent.push(Date.now() - m.ts);
          onMove(index, m.v, performance.now());
        });
        return new Promise<WebSocket>((resolve, reject) => (ws.once('open', () => resolve(ws)), ws.once('error', reject)));
      }),
    );
    sockets.push(...batch);
  }
  return sockets;
}

/** (a): one game, many spectators; moves one at a time from the players' Colyseus sockets. */
async function oneGameManyWatchers(base: string, port: number, pid: number) {
  const game = await newGame(base, 'fo_a');
  const received = new Map<number, number[]>(); // v → receipt times
  const sockets = await openStreams(`ws://127.0.0.1:${port}/v1/games/${game.id}/stream`, WATCHERS, (_, v, at) => {
    (received.get(v) ?? received.set(v, []).get(v)!).push(at);
  });
  const sdk = new Client(`ws://127.0.0.1:${port}`);
  const white = await sdk.joinById(game.id, { token: game.white.token });
  const black = await sdk.joinById(game.id, { token: game.black.token });
  const acks = new Map<number, { sent: number; ack: number }>();
  sinceEvent.length = 0;
  const cpu0 = processCpu(pid);
  for (const [i, uci] of LINE.slice(0, PLIES).entries()) {
    acks.set(i + 1, await sendMove(i % 2 === 0 ? white : black, uci));
    await new Promise((r) => setTimeout(r, 50)); // a brisk game, not a queue
  }
  await new Promise((r) => setTimeout(r, 500));
  const cpuS = processCpu(pid) - cpu0;
  const latencies = [...acks].flatMap(([v, t]) => (received.get(v) ?? []).map((at) => at - t.ack));
  const fromSend = [...acks].flatMap(([v, t]) => (received.get(v) ?? []).map((at) => at - t.sent));
  // Each move reaches every spectator as two messages (move and its time_update).
  const delivered = latencies.length * 2;
  for (const s of sockets) s.terminate();
  await Promise.all([white.leave(), black.leave()]);
  return {
    watchers: WATCHERS,
    moves: acks.size,
    move_messages_received: latencies.length,
    missing: acks.size * WATCHERS - latencies.length,
    ack_to_receipt_ms: summary(latencies),
    accepted_to_receipt_ms: summary(sinceEvent),
    sent_to_receipt_ms: summary(fromSend),
    server_cpu_us_per_delivered_message: Number(((cpuS * 1e6) / delivered).toFixed(2)),
  };
}

/** (b): many games, one spectator each; REST moves from many players at once. */
async function manyGamesOneWatcher(base: string, port: number, pid: number) {
  const games = await setupGames(base, GAMES, 'fo_b', 25);
  const received = new Map<string, number>(); // `${game}:${v}` → receipt time
  const sockets: WebSocket[] = [];
  for (let i = 0; i < games.length; i += 100) {
    const slice = games.slice(i, i + 100);
    sockets.push(
      ...(await Promise.all(
        slice.map((g) => openStreams(`ws://127.0.0.1:${port}/v1/games/${g.id}/stream`, 1, (_, v, at) => received.set(`${g.id}:${v}`, at)).then((s) => s[0])),
      )),
    );
  }
  const plies = Math.min(PLIES, 10);
  const latencies: number[] = [];
  const fromSend: number[] = [];
  sinceEvent.length = 0;
  const cpu0 = processCpu(pid);
  const t0 = performance.now();
  // A human pace: each game moves every MOVE_EVERY_MS, the games out of phase, so the service
  // sees games.length / MOVE_EVERY_MS moves a second (200/s for 1,000 games), not a queue.
  await Promise.all(
    games.map(async (g, i) => {
      await new Promise((r) => setTimeout(r, (i / games.length) * MOVE_EVERY_MS));
      for (const [ply, uci] of LINE.slice(0, plies).entries()) {
        const due = performance.now() + MOVE_EVERY_MS;
        const mover = ply % 2 === 0 ? g.white : g.black;
        const sent = performance.now();
        const answer = await requestJson(`${base}/v1`, 'POST', `/games/${g.id}/moves`, { from: uci.slice(0, 2), to: uci.slice(2, 4) }, mover.token);
        const ack = performance.now();
        if (answer.status !== 200) throw new Error(`move ${uci}: ${answer.status} ${JSON.stringify(answer.body)}`);
        // The message may come before the HTTP answer (negative) or just after it.
        const key = `${g.id}:${ply + 1}`;
        for (let wait = 0; !received.has(key) && wait < 200; wait++) await new Promise((r) => setTimeout(r, 1));
        if (received.has(key)) {
          latencies.push(received.get(key)! - ack);
          fromSend.push(received.get(key)! - sent);
        }
        await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
      }
    }),
  );
  const wallS = (performance.now() - t0) / 1000;
  const cpuS = processCpu(pid) - cpu0;
  const moves = games.length * plies;
  for (const s of sockets) s.terminate();
  return {
    games: games.length,
    moves,
    target_moves_per_s: Math.round((games.length * 1000) / MOVE_EVERY_MS),
    moves_per_s: Math.round(moves / wallS),
    move_messages_received: latencies.length,
    ack_to_receipt_ms: summary(latencies),
    accepted_to_receipt_ms: summary(sinceEvent),
    sent_to_receipt_ms: summary(fromSend),
    // REST moves: authentication, the game's checks and the move itself dominate here.
    server_cpu_us_per_move: Math.round((cpuS * 1e6) / moves),
  };
}

/** The floor: a bare ws server broadcasting a message of the stream's size to `count` sockets. */
async function bareBroadcast(count: number) {
  const port = await freePort();
  const code = `
    const { WebSocketServer } = require('ws');
    const wss = new WebSocketServer({ port: ${port}, host: '127.0.0.1' });
    wss.on('connection', (ws, req) => {
      if (req.url !== '/control') return;
      ws.on('message', (m) => { const text = String(m); for (const c of wss.clients) if (c !== ws) c.send(text); });
    });
    wss.on('listening', () => process.send('ready'));`;
  const child = spawn(process.execPath, ['-e', code], { cwd: process.cwd(), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise((r) => child.once('message', r));
  const sent = new Map<number, number>();
  const latencies: number[] = [];
  const sockets = await openStreams(`ws://127.0.0.1:${port}/watch`, count, (_, v, at) => latencies.push(at - sent.get(v)!));
  const control = new WebSocket(`ws://127.0.0.1:${port}/control`);
  await new Promise((r) => control.once('open', r));
  const padding = 'x'.repeat(330); // a move message is about 400 bytes
  const cpu0 = processCpu(child.pid!);
  for (let v = 1; v <= PLIES; v++) {
    sent.set(v, performance.now());
    control.send(`{"type":"move","pad":"${padding}","v":${v}}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 500));
  const cpuS = processCpu(child.pid!) - cpu0;
  for (const s of [...sockets, control]) s.terminate();
  child.kill();
  return {
    sockets: count,
    send_to_receipt_ms: summary(latencies),
    server_cpu_us_per_delivered_message: Number(((cpuS * 1e6) / latencies.length).toFixed(2)),
  };
}

async function main() {
  const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const db = await createDatabase(serverUrl);
  const { child: server, port, base, exited } = await startServiceProcess(db.url, { env: { FIRST_MOVE_SECONDS: '900' } });
  try {
    const a = await oneGameManyWatchers(base, port, server.pid!);
    const b = await manyGamesOneWatcher(base, port, server.pid!);
    const baseline = await bareBroadcast(WATCHERS);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    console.log(
      JSON.stringify(
        {
          benchmark: 'game stream fan-out (real PostgreSQL, plain ws subscribers in this process)',
          node: process.version,
          cpus: os.cpus().length,
          one_game_many_watchers: a,
          many_games_one_watcher: b,
          baseline_bare_ws_broadcast: baseline,
          server_refusals: metrics.split('\n').filter((l) => l.startsWith('chess_refusals_total') && !l.endsWith(' 0')),
        },
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
