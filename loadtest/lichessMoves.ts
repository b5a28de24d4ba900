/**
 * Benchmark: what a move over Lichess's Board API costs the service against the same move made in
 * a room (the bound: no more than 1.5×), and both against a tight chess.js loop, in one run.
 * Prints one JSON report.
 *
 *   npx tsx loadtest/lichessMoves.ts [--games 100] [--plies 60] [--warmup-games 30] [--board-first]
 *
 * Two phases, one after the other, each on its own --games new games playing the same seeded
 * random lines (game i of each phase plays line i), each measuring the service's CPU (from /proc:
 * the service is a child process) and PostgreSQL's over its moves alone:
 * - room: both players in the game's room (Colyseus SDK), as moves.ts plays: send `move`, wait
 *   for `move:ok`, the opponent moves next;
 * - board: both players as Lichess Board clients, each with a personal token (`board:play`, made
 *   over /v1 as a user would) and its own keep-alive HTTP agent, holding its game stream open
 *   (`GET /api/board/game/stream/{id}`) and moving (`POST /api/board/game/{id}/move/{uci}`) when a
 *   line of it shows the opponent's move, as a Board client plays: the stream's line is its cue.
 *   A phase ends when every player's stream has shown the last move.
 * Both paths are first played unmeasured (--warmup-games games each, other lines): the phase that
 * ran first used to pay the JIT's warm-up for both (the ratio was 1.5–1.6 with the room first and
 * 2.4 with the Board API first). The room phase runs first unless --board-first. Ack latency is send → `move:ok` in a room,
 * POST → its `{"ok":true}` over the Board API; the Board phase also reports the cue latency (POST
 * sent → the opponent's stream line showing the move). `monotonic_us` is each phase's window on
 * the machine's monotonic clock, the clock of a `--cpu-prof` profile (BENCH_SERVER_NODE_ARGS).
 * DATABASE_URL names the PostgreSQL server (a fresh database is created and dropped).
 */
import '../src/polyfills.ts';
import http from 'node:http';
import os from 'node:os';
import { createDatabase } from '../test/support/database.ts';
import { postData, startServiceProcess } from '../test/support/process.ts';
import { percentiles } from '../test/support/percentiles.ts';
import { joinGames, sendMove, setupGames, type BenchGame } from './setup.ts';
import { chessJsLoop, formatUci, randomGame } from './lines.ts';
import { postgresCpu, processCpu } from './cpu.ts';
import { arg, flag } from './args.ts';

const GAMES = arg('games', 100);
const PLIES = arg('plies', 60);
const WARMUP_GAMES = arg('warmup-games', 30);

type Phase = { cpuS: number; pgS: number; wallS: number; ackMs: number[]; cueMs?: number[]; monotonicUs: { from: number; to: number } };

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** The service's and PostgreSQL's CPU over `play` alone. */
async function measured(pid: number, play: () => Promise<void>): Promise<Omit<Phase, 'ackMs' | 'cueMs'>> {
  // What the setup left behind (the last signups' writes, presence) settles first.
  await new Promise((r) => setTimeout(r, 1000));
  const cpu0 = processCpu(pid);
  const pg0 = postgresCpu();
  const from = monotonicUs();
  await play();
  const to = monotonicUs();
  return { cpuS: processCpu(pid) - cpu0, pgS: postgresCpu() - pg0, wallS: (to - from) / 1e6, monotonicUs: { from, to } };
}

async function roomPhase(port: number, base: string, pid: number, lines: string[][], prefix = 'room_'): Promise<Phase> {
  const rooms = await joinGames(port, await setupGames(base, lines.length, prefix));
  const ackMs: number[] = [];
  const phase = await measured(pid, async () => {
    await Promise.all(
      rooms.map(async (r, i) => {
        for (let ply = 0; ply < lines[i].length; ply++) {
          const { sent, ack } = await sendMove(ply % 2 === 0 ? r.white : r.black, lines[i][ply]);
          ackMs.push(ack - sent);
        }
      }),
    );
  });
  await Promise.all(rooms.flatMap((r) => [r.white.leave(), r.black.leave()]));
  return { ...phase, ackMs };
}

/** One player's Board client: its token, its connections, its game stream. */
type BoardClient = { token: string; agent: http.Agent; stream: GameStreamReader };

/** A Board client's game stream: how many plies its last line showed, and a wait for more. */
class GameStreamReader {
  plies = 0;
  /** Whether gameFull has come. */
  private seen = false;
  private waiting: { plies: number; resolve: (at: number) => void }[] = [];

  constructor(private readonly req: http.ClientRequest) {}

  static open(base: string, gameId: string, token: string, agent: http.Agent): Promise<GameStreamReader> {
    return new Promise((resolve, reject) => {
      const req = http.get(`${base}/api/board/game/stream/${gameId}`, { agent, headers: { authorization: `Bearer ${token}` } });
      const reader = new GameStreamReader(req);
      req.once('error', reject);
      req.once('response', (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream ${gameId}: HTTP ${res.statusCode}`));
        res.setEncoding('utf8');
        let rest = '';
        res.on('data', (chunk: string) => {
          const lines = (rest + chunk).split('\n');
          rest = lines.pop()!;
          for (const line of lines) if (line.trim()) reader.read(JSON.parse(line));
        });
        res.on('error', () => {});
        // Resolved once gameFull has come: the stream is live.
        void reader.until(0).then(() => resolve(reader));
      });
    });
  }

  /** Resolves (with when) once a line has shown `plies` moves. */
  until(plies: number): Promise<number> {
    if (this.seen && this.plies >= plies) return Promise.resolve(performance.now());
    return new Promise((resolve) => this.waiting.push({ plies, resolve }));
  }

  close(): void {
    this.req.destroy();
  }

  private read(line: { type: string; moves?: string; state?: { moves: string } }): void {
    const moves = line.type === 'gameFull' ? line.state!.moves : line.type === 'gameState' ? line.moves! : undefined;
    if (moves === undefined) return;
    this.seen = true;
    this.plies = moves ? moves.split(' ').length : 0;
    const at = performance.now();
    this.waiting = this.waiting.filter((w) => (w.plies <= this.plies ? (w.resolve(at), false) : true));
  }
}

async function boardClient(base: string, gameId: string, player: BenchGame['white']): Promise<BoardClient> {
  const { token } = await postData(base, '/v1/account/tokens', { description: 'bench', scopes: ['board:play'] }, player.token);
  // One client's connections, kept alive between its requests as a real client's are.
  const agent = new http.Agent({ keepAlive: true });
  return { token, agent, stream: await GameStreamReader.open(base, gameId, token, agent) };
}

/** POST /api/board/game/{id}/move/{uci}; resolves when `{"ok":true}` has been read. */
function postMove(base: string, gameId: string, uci: string, c: BoardClient): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}/api/board/game/${gameId}/move/${uci}`, {
      method: 'POST',
      agent: c.agent,
      headers: { authorization: `Bearer ${c.token}`, 'content-length': 0 },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.once('end', () => (res.statusCode === 200 && body === '{"ok":true}' ? resolve() : reject(new Error(`move ${uci}: ${res.statusCode} ${body}`))));
    });
    req.end();
  });
}

async function boardPhase(base: string, pid: number, lines: string[][], prefix = 'board_'): Promise<Phase> {
  const games = await setupGames(base, lines.length, prefix);
  const clients: { white: BoardClient; black: BoardClient }[] = [];
  for (let i = 0; i < games.length; i += 100) {
    const batch = games.slice(i, i + 100);
    clients.push(...(await Promise.all(batch.map(async (g) => ({ white: await boardClient(base, g.id, g.white), black: await boardClient(base, g.id, g.black) })))));
  }
  const ackMs: number[] = [];
  const cueMs: number[] = [];
  const phase = await measured(pid, async () => {
    await Promise.all(
      games.flatMap((g, i) => {
        const line = lines[i];
        const sentAt: number[] = [];
        // Each player moves on its plies, each time once its stream shows the opponent's move.
        const play = async (c: BoardClient, first: number) => {
          for (let ply = first; ply < line.length; ply += 2) {
            const cued = await c.stream.until(ply);
            if (ply > 0) cueMs.push(cued - sentAt[ply - 1]);
            sentAt[ply] = performance.now();
            await postMove(base, g.id, line[ply], c);
            ackMs.push(performance.now() - sentAt[ply]);
          }
          await c.stream.until(line.length);
        };
        return [play(clients[i].white, 0), play(clients[i].black, 1)];
      }),
    );
  });
  for (const c of clients.flatMap((c) => [c.white, c.black])) {
    c.stream.close();
    c.agent.destroy();
  }
  return { ...phase, ackMs, cueMs };
}

async function main() {
  const db = await createDatabase(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // Setting up the games takes longer than the first-move deadline.
  const { child: server, port, base, exited } = await startServiceProcess(db.url, { nodeArgs, env: { FIRST_MOVE_SECONDS: '900' } });
  try {
    const pid = server.pid!;
    const sequences = Array.from({ length: GAMES }, (_, i) => randomGame(1000 + i, PLIES));
    const lines = sequences.map((s) => s.map(formatUci));
    const loopUs = chessJsLoop(sequences);
    const warmup = Array.from({ length: WARMUP_GAMES }, (_, i) => randomGame(5000 + i, PLIES).map(formatUci));
    if (warmup.length > 0) {
      await roomPhase(port, base, pid, warmup, 'wroom_');
      await boardPhase(base, pid, warmup, 'wboard_');
    }
    const first = flag('board-first') ? 'board' : 'room';
    const room = first === 'room' ? await roomPhase(port, base, pid, lines) : undefined;
    const board = await boardPhase(base, pid, lines);
    const roomLast = room ?? (await roomPhase(port, base, pid, lines));
    const moves = lines.reduce((n, l) => n + l.length, 0);
    const summary = (p: Phase) => {
      const us = (p.cpuS * 1e6) / moves;
      return {
        server_cpu_us_per_move: Math.round(us),
        ratio_to_chessjs: Number((us / loopUs).toFixed(2)),
        postgres_cpu_us_per_move: Math.round((p.pgS * 1e6) / moves),
        wall_s: Number(p.wallS.toFixed(3)),
        moves_per_s: Math.round(moves / p.wallS),
        ack_latency_ms: percentiles(p.ackMs),
        ...(p.cueMs ? { cue_latency_ms: percentiles(p.cueMs) } : {}),
        monotonic_us: p.monotonicUs,
      };
    };
    console.log(
      JSON.stringify(
        {
          benchmark: "a move over Lichess's Board API against the same move in a room (service CPU per move)",
          node: process.version,
          cpus: os.cpus().length,
          loadavg: os.loadavg().map((l) => Number(l.toFixed(2))),
          games: GAMES,
          moves_per_phase: moves,
          warmup_games: WARMUP_GAMES,
          first_phase: first,
          server_pid: pid,
          chessjs_loop_us_per_move: Number(loopUs.toFixed(1)),
          room: summary(roomLast),
          board: summary(board),
          ratio_board_to_room: Number((board.cpuS / roomLast.cpuS).toFixed(2)),
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
