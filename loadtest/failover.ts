/**
 * Benchmark: how long players wait after a node is killed (kill -9), measured with real processes.
 *
 *   REDIS_URL=redis://127.0.0.1:6379/8 npx tsx loadtest/failover.ts [--games 6] [--runs 3] [--leases 3,15]
 *
 * Two scenarios, each run with the dead-node detection off (`FAILOVER_DETECTION=lease`: a dead
 * node's games wait out their leases, the baseline) and on (`lock`, the default), in the same run:
 *
 * - two nodes on Redis: the node hosting the games is killed; each game's player on the survivor
 *   retries (every 100 ms) until a move is accepted again, half of them over REST and half as
 *   Colyseus SDK players joining the game again by id. Measured: kill → move acknowledged.
 * - one node (no Redis) killed and started again on the same database: healthy → move
 *   acknowledged, the same way.
 *
 * Every move acknowledged before the kill must be in PostgreSQL afterwards (checked). The REDIS_URL
 * database is flushed. DATABASE_URL names the PostgreSQL server (a fresh database per run).
 */
import '../src/polyfills.ts';
import os from 'node:os';
import { Client } from '@colyseus/sdk';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createDatabase } from '../test/support/database.ts';
import { requestJson, startServiceProcess, type ServiceProcess } from '../test/support/process.ts';
import { LINE, setupGames, type BenchGame } from './setup.ts';
import { percentile } from '../test/support/percentiles.ts';
import { arg } from './args.ts';

const GAMES = arg('games', 6);
const RUNS = arg('runs', 3);
const LEASES = arg('leases', '3,15').split(',').map(Number);
const DETECTIONS = arg('detection', 'lease,lock').split(',');
const PLIES_BEFORE = 4;
const RETRY_MS = 100;

const serverUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_URL;

type Sample = { rest: number[]; socket: number[]; lost: number };

function baseEnv(lease: number, detection: string): Record<string, string> {
  return {
    GAME_LEASE_SECONDS: String(lease),
    FAILOVER_DETECTION: detection,
    FIRST_MOVE_SECONDS: '900',
    JWT_SECRET: 'failover-bench-secret-'.padEnd(48, 'x'),
    PUBLIC_URL: 'http://chess.failover.bench',
    LOG_LEVEL: 'error',
  };
}

/** Plays the first plies of every game over REST, alternating the nodes asked. */
async function playOpening(nodes: ServiceProcess[], games: BenchGame[]): Promise<void> {
  await Promise.all(
    games.map(async (g, i) => {
      for (let ply = 0; ply < PLIES_BEFORE; ply++) {
        const uci = LINE[ply];
        const token = ply % 2 === 0 ? g.white.token : g.black.token;
        const node = nodes[(i + ply) % nodes.length];
        const answer = await requestJson(`${node.base}/v1`, 'POST', `/games/${g.id}/moves`, { from: uci.slice(0, 2), to: uci.slice(2, 4) }, token);
        if (answer.status !== 200) throw new Error(`opening move: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
    }),
  );
}

const nextMove = () => {
  const uci = LINE[PLIES_BEFORE];
  return { from: uci.slice(0, 2), to: uci.slice(2, 4) };
};

/** Retries the game's next move over REST on `node` until it is accepted; resolves with when. */
async function restUntilAccepted(node: ServiceProcess, g: BenchGame): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await requestJson(`${node.base}/v1`, 'POST', `/games/${g.id}/moves`, nextMove(), g.white.token).catch(() => undefined);
    if (answer?.status === 200) return performance.now();
    if (answer && answer.status !== 503) throw new Error(`REST move after the kill: ${answer.status} ${JSON.stringify(answer.body)}`);
    if (Date.now() > deadline) throw new Error('no move accepted within 60 s');
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}

/** A player joining the game again by id through `node` (as after losing its socket) and moving. */
async function socketUntilAccepted(node: ServiceProcess, g: BenchGame): Promise<number> {
  const deadline = Date.now() + 60_000;
  const sdk = new Client(`ws://127.0.0.1:${node.port}`);
  for (;;) {
    try {
      const room = await sdk.joinById(g.id, { token: g.white.token });
      room.reconnection.enabled = false;
      try {
        const answer = await new Promise<string>((resolve) => {
          const timer = setTimeout(() => resolve('timeout'), 5000);
          room.onMessage('move:ok', () => (clearTimeout(timer), resolve('ok')));
          room.onMessage('error', (e: { code: string }) => (clearTimeout(timer), resolve(e.code)));
          room.onLeave(() => (clearTimeout(timer), resolve('left')));
          room.send('move', { ...nextMove(), id: 1 });
        });
        if (answer === 'ok') return performance.now();
        if (!['left', 'timeout', 'SERVICE_UNAVAILABLE'].includes(answer)) throw new Error(`socket move after the kill: ${answer}`);
      } finally {
        await room.leave().catch(() => {});
      }
    } catch (error) {
      const e = error as { code?: number; message?: string };
      // 503 (the game is between nodes), 404 (its room is not back yet) and a refused socket are
      // worth a retry; anything else is not.
      if (e.code !== undefined && e.code !== 503 && e.code !== 404 && e.code < 1000) throw error;
    }
    if (Date.now() > deadline) throw new Error('no socket move accepted within 60 s');
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}

/** Measures every game's wait from `t0`, half over REST and half over sockets, through `node`. */
async function measure(node: ServiceProcess, games: BenchGame[], t0: number): Promise<{ rest: number[]; socket: number[] }> {
  const times = await Promise.all(
    games.map(async (g, i) => ({ kind: i % 2 === 0 ? 'rest' : 'socket', ms: (await (i % 2 === 0 ? restUntilAccepted : socketUntilAccepted)(node, g)) - t0 })),
  );
  return {
    rest: times.filter((t) => t.kind === 'rest').map((t) => Math.round(t.ms)),
    socket: times.filter((t) => t.kind === 'socket').map((t) => Math.round(t.ms)),
  };
}

/** Acknowledged moves missing from PostgreSQL: each game must have its opening plus the one move after the kill. */
async function lostMoves(dbUrl: string, games: BenchGame[]): Promise<number> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT id, move_count FROM games WHERE id = ANY($1::uuid[])', [games.map((g) => g.id)]);
    return rows.reduce((n, r) => n + Math.max(0, PLIES_BEFORE + 1 - r.move_count), 0);
  } finally {
    await client.end();
  }
}

async function hostOf(dbUrl: string, ids: string[]): Promise<Map<string, string>> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT id, host FROM games WHERE id = ANY($1::uuid[])', [ids]);
    return new Map(rows.map((r) => [r.id, r.host]));
  } finally {
    await client.end();
  }
}

async function twoNodes(lease: number, detection: string): Promise<Sample> {
  if (!redisUrl) throw new Error('set REDIS_URL (its database is flushed)');
  const redis = new Redis(redisUrl);
  await redis.flushdb();
  await redis.quit();
  const db = await createDatabase(serverUrl);
  const env = { ...baseEnv(lease, detection), REDIS_URL: redisUrl };
  const nodes: ServiceProcess[] = [];
  try {
    nodes.push(await startServiceProcess(db.url, { env, publicAddress: true }));
    nodes.push(await startServiceProcess(db.url, { env, publicAddress: true }));
    const ids = await Promise.all(nodes.map(async (n) => (await (await fetch(`${n.base}/healthz`)).json()).data.node as string));
    const all = await setupGames(`${nodes[0].base}`, GAMES * 2, `f${Date.now() % 1e6}_`);
    await playOpening(nodes, all);
    // The victim is the node hosting more of the games; its games are the ones measured.
    const hosts = await hostOf(db.url, all.map((g) => g.id));
    const count = (id: string) => [...hosts.values()].filter((h) => h === id).length;
    const victim = count(ids[0]) >= count(ids[1]) ? 0 : 1;
    const games = all.filter((g) => hosts.get(g.id) === ids[victim]).slice(0, GAMES);
    const survivor = nodes[1 - victim];
    const t0 = performance.now();
    nodes[victim].child.kill('SIGKILL');
    const times = await measure(survivor, games, t0);
    return { ...times, lost: await lostMoves(db.url, games) };
  } finally {
    for (const n of nodes) if (n.child.exitCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await db.drop();
  }
}

async function restartedNode(lease: number, detection: string): Promise<Sample & { healthyAfterKill: number }> {
  const db = await createDatabase(serverUrl);
  const env = baseEnv(lease, detection);
  const nodes: ServiceProcess[] = [];
  try {
    const first = await startServiceProcess(db.url, { env });
    nodes.push(first);
    const games = await setupGames(first.base, GAMES, `r${Date.now() % 1e6}_`);
    await playOpening([first], games);
    const killedAt = performance.now();
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startServiceProcess(db.url, { env, port: first.port });
    nodes.push(second);
    const t0 = performance.now();
    const times = await measure(second, games, t0);
    return { ...times, lost: await lostMoves(db.url, games), healthyAfterKill: Math.round(t0 - killedAt) };
  } finally {
    for (const n of nodes) if (n.child.exitCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await db.drop();
  }
}

const summary = (xs: number[]) =>
  xs.length ? { min: percentile(xs, 0), p50: percentile(xs, 0.5), max: percentile(xs, 1), n: xs.length } : null;

async function main() {
  const report: Record<string, unknown>[] = [];
  const load = [os.loadavg()[0]];
  for (const lease of LEASES) {
    for (const detection of DETECTIONS) {
      const two: Sample[] = [];
      const restart: (Sample & { healthyAfterKill: number })[] = [];
      for (let run = 0; run < RUNS; run++) {
        if (redisUrl) two.push(await twoNodes(lease, detection));
        restart.push(await restartedNode(lease, detection));
      }
      report.push({
        lease_s: lease,
        detection,
        two_nodes_kill_to_move_ms: two.length
          ? { rest: summary(two.flatMap((s) => s.rest)), socket: summary(two.flatMap((s) => s.socket)), lost_acknowledged_moves: two.reduce((n, s) => n + s.lost, 0) }
          : 'skipped: REDIS_URL is not set',
        restarted_node_healthy_to_move_ms: {
          rest: summary(restart.flatMap((s) => s.rest)),
          socket: summary(restart.flatMap((s) => s.socket)),
          kill_to_healthy: summary(restart.map((s) => s.healthyAfterKill)),
          lost_acknowledged_moves: restart.reduce((n, s) => n + s.lost, 0),
        },
      });
      load.push(os.loadavg()[0]);
    }
  }
  console.log(
    JSON.stringify(
      { benchmark: 'failover after kill -9', node: process.version, cpus: os.cpus().length, games_per_run: GAMES, runs: RUNS, load_average_1m: load, results: report },
      null,
      2,
    ),
  );
}

await main();
process.exit(0);
