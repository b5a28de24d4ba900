import '../../src/polyfills.ts';
import assert from 'node:assert/strict';
import { Client, type Room } from '@colyseus/sdk';
import { Redis } from 'ioredis';
import { findGame } from '../../src/db/games.ts';
import pg from 'pg';
import { createDatabase } from '../support/database.ts';
import { requestJson, startServiceProcess, type JsonAnswer, type ServiceProcess } from '../support/process.ts';
import { command } from './rooms.ts';
import { testService } from './service.ts';

/** What every node of a test cluster shares: the token key and issuer (tokens work on any node). */
export const CLUSTER_ENV = { JWT_SECRET: 'cluster-test-secret-'.padEnd(48, 'x'), PUBLIC_URL: 'http://chess.cluster.test', FIRST_MOVE_SECONDS: '600' };

type ProcessOptions = NonNullable<Parameters<typeof startServiceProcess>[1]>;

/**
 * Service processes for one `describe`, over a database of their own on the suite's server: call
 * it in the describe's body (it registers the mocha hooks). `start` runs a node with CLUSTER_ENV,
 * `defaults` and then `o` (env merged); every node left running is killed (SIGKILL) after each
 * test, and the database dropped after the block.
 */
export function processNodes(defaults: ProcessOptions = {}) {
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let nodes: ServiceProcess[] = [];
  before(async () => {
    const { db: harness } = await testService();
    db = await createDatabase(harness.serverUrl);
  });
  afterEach(async () => {
    for (const n of nodes) if (n.child.exitCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    nodes = [];
  });
  after(() => db?.drop());
  return {
    /** The nodes' database (set once the block's `before` has run). */
    get dbUrl(): string {
      return db!.url;
    },
    async start(o: ProcessOptions = {}): Promise<ServiceProcess> {
      const node = await startServiceProcess(db!.url, { ...defaults, ...o, env: { ...CLUSTER_ENV, ...defaults.env, ...o.env } });
      nodes.push(node);
      return node;
    },
  };
}

/**
 * Two service processes over Redis for a whole `describe` (call it in the body: it registers the
 * mocha hooks), on a database of their own: the block is skipped, saying so, without REDIS_URL.
 * `nodes` and `dbUrl` are set once its `before` has run.
 */
export function twoNodesOverRedis(what: string): { readonly nodes: ServiceProcess[]; readonly dbUrl: string } {
  let nodes: ServiceProcess[] = [];
  let db: { url: string; drop: () => Promise<void> } | undefined;
  before(async function () {
    const redisUrl = await clusterRedisUrl();
    if (!redisUrl) {
      console.warn(`    SKIPPED: REDIS_URL is not set, so the two-node ${what} test did not run`);
      return this.skip();
    }
    this.timeout(60_000);
    const { db: harness } = await testService();
    db = await createDatabase(harness.serverUrl);
    const env = { ...CLUSTER_ENV, REDIS_URL: redisUrl };
    nodes = [await startServiceProcess(db.url, { env, publicAddress: true })];
    nodes.push(await startServiceProcess(db.url, { env, publicAddress: true }));
  });
  after(async () => {
    for (const n of nodes) if (n.child.exitCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await db?.drop();
  });
  return {
    get nodes() {
      return nodes;
    },
    get dbUrl() {
      return db!.url;
    },
  };
}

/**
 * The game as PostgreSQL holds it and every read shows it: the row's snapshot with the moves
 * appended after it folded in (migration 017), so a test sees each acknowledged move.
 */
export async function storedGame(dbUrl: string, gameId: string): Promise<{ host: string | null; host_epoch: number; move_count: number; pgn: string }> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    const g = await findGame(client, gameId);
    if (!g) throw new Error(`no game ${gameId}`);
    return { host: g.host, host_epoch: Number(g.hostEpoch), move_count: g.moveCount, pgn: g.pgn };
  } finally {
    await client.end();
  }
}

/**
 * A Redis database for service processes joined into a cluster: the one after REDIS_URL's (the
 * test process's own service must not join their cluster), flushed. Undefined without REDIS_URL.
 */
export async function clusterRedisUrl(): Promise<string | undefined> {
  if (!process.env.REDIS_URL) return undefined;
  const url = new URL(process.env.REDIS_URL);
  url.pathname = `/${(Number(url.pathname.slice(1) || 0) + 1) % 16}`;
  const redis = new Redis(url.toString());
  await redis.flushdb();
  await redis.quit();
  return url.toString();
}

/** The node id a service process answers /healthz with: the `host` of the leases it holds. */
export async function nodeIdOf(node: ServiceProcess): Promise<string> {
  return (await (await fetch(`${node.base}/healthz`)).json()).data.node;
}

/** One row of the database, read on a connection of its own (the service's database, not the harness's). */
export async function queryRow(dbUrl: string, sql: string, params: unknown[] = []): Promise<any> {
  const client = new pg.Client({ connectionString: dbUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows[0];
  } finally {
    await client.end();
  }
}

/**
 * A REST move retried the way a client honours 503 + Retry-After (here every 100 ms) until it is
 * answered otherwise; fails after `ms`. Every refusal on the way must be a 503 with Retry-After.
 */
export async function moveWhenServed(node: ServiceProcess, gameId: string, uci: string, token: string, ms = 15_000): Promise<JsonAnswer> {
  const deadline = Date.now() + ms;
  for (;;) {
    const answer = await requestJson(`${node.base}/v1`, 'POST', `/games/${gameId}/moves`, { from: uci.slice(0, 2), to: uci.slice(2, 4) }, token);
    if (answer.status !== 503) return answer;
    assert.equal(answer.headers.get('retry-after'), '1', 'a 503 says when to come back');
    if (Date.now() > deadline) assert.fail(`the move was still refused with 503 after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * A player (re)joining a game by id through `node`, as a client does after losing its socket:
 * retried while the join is refused for the game being between nodes (503), or its room is not
 * up yet; fails after `ms`. SDK auto-reconnection is off: the test sees every close.
 */
export async function joinWhenServed(node: ServiceProcess, gameId: string, token: string, ms = 15_000): Promise<Room> {
  const deadline = Date.now() + ms;
  const sdk = new Client(`ws://127.0.0.1:${node.port}`);
  for (;;) {
    try {
      const room = await sdk.joinById(gameId, { token });
      room.reconnection.enabled = false;
      return room;
    } catch (error) {
      const code = (error as { code?: number }).code;
      if (code !== 503) throw error;
      if (Date.now() > deadline) assert.fail(`the join was still refused after ${ms} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** A socket move (with a command id) and its answer: `move:ok` or `error`. */
export function socketMove(room: Room, uci: string) {
  return command(room, 'move', { from: uci.slice(0, 2), to: uci.slice(2, 4) });
}

/** Kills a service process at once (no drain: its sessions and sockets just end) and waits for it. */
export async function kill9(node: ServiceProcess): Promise<void> {
  node.child.kill('SIGKILL');
  await node.exited;
}
