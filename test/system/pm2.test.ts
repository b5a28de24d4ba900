import '../../src/polyfills.ts';
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, type Room } from '@colyseus/sdk';
import { Redis } from 'ioredis';
import { createDatabase } from '../support/database.ts';
import { CLUSTER_ENV, clusterRedisUrl, nodeIdOf, queryRow, socketMove, storedGame } from '../helpers/cluster.ts';
import { postData, requestJson, type ServiceProcess } from '../support/process.ts';
import { until } from '../helpers/poll.ts';
import { testService } from '../helpers/service.ts';
import { MailCatcher } from '../helpers/smtp.ts';
import { WsClient } from '../helpers/ws.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PM2 = path.join(ROOT, 'node_modules/pm2/bin/pm2');
const run = promisify(execFile);
const INSTANCES = 3;
/** Debian's nginx (in /usr/sbin, which a non-root PATH may lack), if installed. */
const NGINX = ['nginx', '/usr/sbin/nginx'].find((bin) => !spawnSync(bin, ['-v']).error);

/**
 * `count` consecutive TCP ports free on loopback (PM2's processes listen on PORT + i), below the
 * kernel's ephemeral range: a port from that range, free when checked, may be the local end of a
 * process's next outgoing connection (to PostgreSQL, to Redis) by the time nginx binds it.
 */
async function freePortRange(count: number): Promise<number> {
  const ephemeralFrom = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  const from = 20_000;
  const span = Math.max(1_000, ephemeralFrom - from - count);
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (;;) {
    const base = from + Math.floor(Math.random() * span);
    let ok = true;
    for (let i = 0; i < count && ok; i++) ok = await free(base + i);
    if (ok) return base;
  }
}

/**
 * The cluster as an operator starts it (docs/operations.md, Scaling out): `pm2 start ecosystem.config.js`,
 * three processes in fork mode on Redis and PostgreSQL, a PM2 of the test's own (PM2_HOME in a
 * temporary directory, its daemon killed after), and nginx in front of them with the configuration
 * of docs/operations.md when Debian's nginx is installed.
 */
describe('Three processes under PM2 (ecosystem.config.js), and behind nginx', function () {
  this.timeout(120_000);
  let db: { url: string; drop: () => Promise<void> };
  let redisUrl: string | undefined;
  const mail = new MailCatcher();
  let smtpPort: number;
  const pm2Home = mkdtempSync(path.join(os.tmpdir(), 'chess-pm2-'));
  let nginx: ChildProcess | undefined;
  let nginxDir: string | undefined;

  const pm2 = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, [PM2, ...args], { cwd: ROOT, env: { ...process.env, PM2_HOME: pm2Home, ...env }, timeout: 60_000 });

  before(async function () {
    redisUrl = await clusterRedisUrl();
    if (!redisUrl) {
      console.warn('    SKIPPED: REDIS_URL is not set, so the PM2 cluster tests did not run');
      return this.skip();
    }
    const { db: harness } = await testService();
    db = await createDatabase(harness.serverUrl);
    smtpPort = await mail.start();
  });

  afterEach(async () => {
    nginx?.kill('SIGTERM');
    if (nginx && nginx.exitCode === null) await new Promise((r) => nginx!.once('exit', r));
    nginx = undefined;
    if (nginxDir) rmSync(nginxDir, { recursive: true, force: true });
    // The daemon and every process it started.
    await pm2(['kill']).catch(() => {});
  });

  after(async () => {
    await mail.stop();
    await db?.drop();
    rmSync(pm2Home, { recursive: true, force: true });
  });

  /** Starts the ecosystem file's processes; resolves with them once each answers /healthz. */
  async function startCluster(extra: Record<string, string> = {}): Promise<ServiceProcess[]> {
    const basePort = await freePortRange(INSTANCES);
    const env = {
      ...CLUSTER_ENV,
      DATABASE_URL: db.url,
      REDIS_URL: redisUrl!,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      INSTANCES: String(INSTANCES),
      PORT: String(basePort),
      PUBLIC_HOST: '127.0.0.1',
      HOST: '127.0.0.1',
      // What the test suite's processes run with (test/support/process.ts).
      RATE_LIMITS: 'off',
      BCRYPT_COST: '4',
      EMAIL_DOMAIN_CHECK: 'off',
      ANALYSIS_WORKERS: '0',
      LOG_LEVEL: 'warn',
      ...extra,
    };
    await pm2(['start', 'ecosystem.config.js'], env);
    const nodes = Array.from({ length: INSTANCES }, (_, i) => {
      const port = basePort + i;
      return { port, base: `http://127.0.0.1:${port}` } as ServiceProcess;
    });
    try {
      await until('every PM2 process answers /healthz', async () => (await Promise.all(nodes.map((n) => fetch(`${n.base}/healthz`).then((r) => r.ok, () => false)))).every(Boolean), { ms: 60_000, everyMs: 200 });
    } catch (error) {
      console.warn(await pm2(['logs', '--nostream', '--lines', '30']).then((r) => r.stdout, () => ''));
      throw error;
    }
    return nodes;
  }

  /** The rooms the cluster's processes have told Redis they hold (Colyseus's `roomcount` hash). */
  async function roomsCounted(): Promise<number> {
    const redis = new Redis(redisUrl!);
    try {
      const counts = await redis.hgetall('roomcount');
      return Object.values(counts).reduce((sum, v) => sum + Number(v.split(',')[0]), 0);
    } finally {
      redis.disconnect();
    }
  }

  const signup = async (node: ServiceProcess, name: string) =>
    postData(`${node.base}/v1`, '/auth/signup', { email: `${name}@example.com`, password: 'pm2-test-pass-1', username: name });

  /** A game between two new players, set up and played across the nodes (each call goes to the next one). */
  async function playAcross(entries: ServiceProcess[], joinVia: (i: number) => Client) {
    let turn = 0;
    const next = () => entries[turn++ % entries.length];
    const tag = Date.now() % 1e6;
    const white = await signup(next(), `pw${tag}`);
    const black = await signup(next(), `pb${tag}`);
    const wt = white.session.access_token;
    const bt = black.session.access_token;
    const game = await postData(`${next().base}/v1`, '/games', { type: 'challenge', opponent_id: black.user.id, time_control: 'rapid', initial_time: 600, increment: 0, color: 'white' }, wt);
    await postData(`${next().base}/v1`, `/games/${game.id}/accept`, {}, bt);
    // A spectator on each entry point, and Black over a socket joined through each in turn.
    const spectators = await Promise.all(entries.map((n) => WsClient.open(`${n.base.replace('http', 'ws')}/v1/games/${game.id}/stream`)));
    for (const s of spectators) await s.next('state');
    const line = ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'g8f6', 'd2d3', 'f8c5', 'c2c3'];
    let room: Room | undefined;
    for (const [ply, uci] of line.entries()) {
      if (ply % 2 === 0) {
        await postData(`${next().base}/v1`, `/games/${game.id}/moves`, { from: uci.slice(0, 2), to: uci.slice(2, 4) }, wt);
      } else {
        await room?.leave();
        room = await joinVia(ply).joinById(game.id, { token: bt });
        const answer = await socketMove(room, uci);
        assert.equal(answer.type, 'move:ok', JSON.stringify(answer.body));
      }
    }
    await room?.leave();
    const sans = ['e4', 'e5', 'Nf3', 'Nc6', 'Bc4', 'Nf6', 'd3', 'Bc5', 'c3'];
    for (const [i, s] of spectators.entries()) {
      const seen: string[] = [];
      while (seen.length < line.length) {
        const m = await s.next(undefined, 10_000);
        if (m.type === 'move') seen.push(m.move.san);
      }
      assert.deepEqual(seen, sans, `spectator ${i} saw every move in order`);
      s.ws.close();
    }
    const row = await storedGame(db.url, game.id);
    assert.equal(row.move_count, line.length);
    return game.id as string;
  }

  it('runs three processes from the ecosystem file that serve one game together: REST, sockets and streams through every process', async () => {
    const nodes = await startCluster();
    const ids = await Promise.all(nodes.map(nodeIdOf));
    assert.equal(new Set(ids).size, INSTANCES, 'three nodes, each with its own id');
    const registered = await queryRow(db.url, 'SELECT array_agg(id ORDER BY id) AS ids FROM nodes');
    assert.deepEqual(registered.ids, [...ids].sort(), 'each holds its node lock and row');
    const sdks = nodes.map((n) => new Client(`ws://127.0.0.1:${n.port}`));
    const gameId = await playAcross(nodes, (i) => sdks[i % sdks.length]);
    // Rooms are placed by load: a second game's room need not be on the first's process, and
    // whichever it is on, the others reach it. The game's host is one of the three.
    const host = (await queryRow(db.url, 'SELECT host FROM games WHERE id = $1', [gameId])).host;
    assert.ok(ids.includes(host));
  });

  it('works behind nginx with the documented configuration, without sticky sessions', async function () {
    if (!NGINX) {
      console.warn("    SKIPPED: nginx is not installed (Debian's nginx; .ci/run installs it), so the nginx test did not run");
      return this.skip();
    }
    const nginxPort = (await freePortRange(1));
    const proxyHost = `127.0.0.1:${nginxPort}`;
    const nodes = await startCluster({ PROXY_HOST: proxyHost, TRUST_PROXY: 'loopback' });
    // The operations guide's nginx block, with this run's ports.
    const guide = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
    const block = /```nginx\n([\s\S]*?)```/.exec(guide)?.[1];
    assert.ok(block, 'docs/operations.md has an nginx example');
    let site = block.replace('listen 80;', `listen 127.0.0.1:${nginxPort};`);
    for (let i = 0; i < INSTANCES; i++) site = site.replaceAll(`127.0.0.1:${2567 + i}`, `127.0.0.1:${nodes[i].port}`);
    nginxDir = mkdtempSync(path.join(os.tmpdir(), 'chess-nginx-'));
    writeFileSync(
      path.join(nginxDir, 'nginx.conf'),
      `worker_processes 1;\npid ${nginxDir}/nginx.pid;\nerror_log ${nginxDir}/error.log warn;\nevents {}\n` +
        `http {\n  access_log off;\n  client_body_temp_path ${nginxDir}/body;\n  proxy_temp_path ${nginxDir}/proxy;\n${site}\n}\n`,
    );
    nginx = spawn(NGINX, ['-p', nginxDir, '-c', path.join(nginxDir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let nginxErrors = '';
    nginx.stderr!.on('data', (c) => (nginxErrors += c));
    const entry = { port: nginxPort, base: `http://${proxyHost}` } as ServiceProcess;
    await until('nginx answers', () => fetch(`${entry.base}/healthz`).then((r) => r.ok, () => false), { ms: 10_000 }).catch((e) => {
      throw new Error(`${e.message}\n${nginxErrors}`);
    });
    // Round robin, no stickiness: successive requests reach different processes.
    const answered = new Set<string>();
    for (let i = 0; i < INSTANCES * 2; i++) answered.add((await (await fetch(`${entry.base}/healthz`)).json()).data.node);
    assert.equal(answered.size, INSTANCES, 'nginx spreads requests over every process');

    // /node-i/ reaches process i, whatever the round robin would pick.
    const ids = await Promise.all(nodes.map(nodeIdOf));
    for (let i = 0; i < INSTANCES; i++) {
      for (let k = 0; k < INSTANCES; k++) {
        const res = await fetch(`${entry.base}/node-${i}/healthz`);
        assert.equal(res.status, 200, `/node-${i}/ is routed`);
        assert.equal((await res.json()).data.node, ids[i]);
      }
    }

    // Everything through the one entry point: REST, the game streams, and the SDK (matchmake over
    // HTTP, then the room's socket through /node-i/). Games are placed by load; more are started
    // until each process hosts one, so every /node-i/ route carries a player's socket.
    const sdk = new Client(`ws://${proxyHost}`);
    const hosts = new Set<string>();
    for (let n = 0; hosts.size < INSTANCES; n++) {
      assert.ok(n < 12, `games landed on only ${hosts.size} of ${INSTANCES} processes`);
      const tag = `${Date.now() % 1e5}${n}`;
      const white = await signup(entry, `nw${tag}`);
      const black = await signup(entry, `nb${tag}`);
      const game = await postData(`${entry.base}/v1`, '/games', { type: 'challenge', opponent_id: black.user.id, time_control: 'rapid', initial_time: 600, increment: 0, color: 'white' }, white.session.access_token);
      await postData(`${entry.base}/v1`, `/games/${game.id}/accept`, {}, black.session.access_token);
      const spectator = await WsClient.open(`ws://${proxyHost}/v1/games/${game.id}/stream`);
      await spectator.next('state');
      await postData(`${entry.base}/v1`, `/games/${game.id}/moves`, { from: 'e2', to: 'e4' }, white.session.access_token);
      const room = await sdk.joinById(game.id, { token: black.session.access_token });
      const answer = await socketMove(room, 'e7e5');
      assert.equal(answer.type, 'move:ok', JSON.stringify(answer.body));
      await room.leave();
      const seen: string[] = [];
      while (seen.length < 2) {
        const m = await spectator.next(undefined, 10_000);
        if (m.type === 'move') seen.push(m.move.san);
      }
      assert.deepEqual(seen, ['e4', 'e5']);
      spectator.ws.close();
      hosts.add((await queryRow(db.url, 'SELECT host FROM games WHERE id = $1', [game.id])).host);
      // Colyseus places a room on the process with the fewest rooms as the processes last wrote
      // their counts to Redis, at most once a second: games made faster than that all see the
      // same counts and land together. The next game waits until this one is counted.
      await until('the room counts include every game so far', async () => (await roomsCounted()) >= n + 1, { ms: 5_000 });
    }
    const seat = await requestJson(entry.base, 'POST', '/matchmake/joinOrCreate/lobby', {});
    assert.equal(seat.status, 200);
    assert.match(seat.body.publicAddress, new RegExp(`^${proxyHost.replace('.', '\\.')}/node-[0-2]$`), 'seats name the process by its path on the proxy');
  });
});
