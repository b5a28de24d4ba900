import assert from 'node:assert/strict';
import pg from 'pg';
import { findGame } from '../../src/db/games.ts';
import { createDatabase } from '../support/database.ts';
import { clusterRedisUrl } from '../helpers/cluster.ts';
import { requestJson, startServiceProcess, type ServiceProcess } from '../support/process.ts';
import { testService } from '../helpers/service.ts';
import { WsClient } from '../helpers/ws.ts';

/**
 * Two processes joined by Redis and one PostgreSQL form one service: a game lives in one room
 * on one node, REST calls to either node reach it, and when its node dies the game moves to the
 * survivor once the lease lapses, losing nothing. Needs REDIS_URL (CI sets it).
 */
describe('Two nodes, one service (REDIS_URL)', function () {
  this.timeout(60_000);
  let nodes: ServiceProcess[] = [];
  let db: { url: string; drop: () => Promise<void> };

  before(async function () {
    const redisUrl = await clusterRedisUrl();
    if (!redisUrl) {
      console.warn('    SKIPPED: REDIS_URL is not set, so the two-node tests did not run');
      return this.skip();
    }
    const { db: harness } = await testService();
    db = await createDatabase(harness.serverUrl);
    // Every node signs and checks tokens with the same key and issuer (JWT_SECRET, PUBLIC_URL).
    const env = { REDIS_URL: redisUrl, GAME_LEASE_SECONDS: '2', FIRST_MOVE_SECONDS: '60', JWT_SECRET: 'cluster-test-secret-'.padEnd(48, 'x'), PUBLIC_URL: 'http://chess.cluster.test' };
    // The first node migrates; the second boots against the migrated database.
    nodes = [await startServiceProcess(db.url, { env })];
    nodes.push(await startServiceProcess(db.url, { env }));
  });

  after(async () => {
    for (const n of nodes) if (n.child.exitCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    await db?.drop();
  });


  const call = (node: ServiceProcess, method: string, path: string, body?: unknown, token?: string) =>
    requestJson(`${node.base}/v1`, method, path, body, token);

  it('serves one game through either node, and moves it to the survivor when its node dies', async () => {
    const [a, b] = nodes;
    const signup = async (node: ServiceProcess, name: string) =>
      (await call(node, 'POST', '/auth/signup', { email: `${name}@example.com`, password: 'cluster-test-1', username: name })).body.data;
    const tag = Date.now().toString(36);
    const white = await signup(a, `cl_w${tag}`);
    const black = await signup(b, `cl_b${tag}`);
    const wt = white.session.access_token;
    const bt = black.session.access_token;

    const created = await call(a, 'POST', '/games', {
      type: 'challenge', opponent_id: black.user.id, time_control: 'rapid', initial_time: 600, increment: 0, color: 'white',
    }, wt);
    assert.equal(created.status, 201);
    const id = created.body.data.id;
    assert.equal((await call(b, 'POST', `/games/${id}/accept`, {}, bt)).status, 200);
    // A spectator on each node, whichever hosts the game.
    const spectators = await Promise.all(nodes.map((n) => WsClient.open(`ws://127.0.0.1:${n.port}/v1/games/${id}/stream`)));
    for (const s of spectators) assert.equal((await s.next('state')).v, 0);

    // Moves alternate between the nodes: each REST call reaches the one room wherever it lives.
    const line: Array<[ServiceProcess, string, string, string]> = [
      [a, wt, 'e2', 'e4'], [b, bt, 'e7', 'e5'], [b, wt, 'g1', 'f3'], [a, bt, 'b8', 'c6'],
    ];
    for (const [node, token, from, to] of line) {
      const res = await call(node, 'POST', `/games/${id}/moves`, { from, to }, token);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const concurrent = await Promise.all([a, b, a, b].map((n) => call(n, 'POST', `/games/${id}/moves`, { from: 'f1', to: 'c4' }, wt)));
    assert.equal(concurrent.filter((r) => r.status === 200).length, 1);

    // Kill the node that hosts the room, without any chance to hand the game over.
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const before = (await client.query('SELECT host, host_epoch, fen FROM games WHERE id = $1', [id])).rows[0];
    const nodeIds = await Promise.all(nodes.map(async (n) => (await (await fetch(`${n.base}/healthz`)).json()).data.node));
    const victim = nodes[nodeIds.indexOf(before.host)];
    assert.ok(victim, `the game's host ${before.host} is one of ${nodeIds}`);
    victim.child.kill('SIGKILL');
    await victim.exited;
    const survivor = victim === a ? b : a;

    // The survivor answers 503 with Retry-After until the lease lapses, then hosts the game.
    let answer;
    const deadline = Date.now() + 30_000;
    for (;;) {
      answer = await call(survivor, 'POST', `/games/${id}/moves`, { from: 'g8', to: 'f6' }, bt);
      if (answer.status !== 503 || Date.now() > deadline) break;
      assert.equal(answer.headers.get('retry-after'), '1');
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    // As every read shows it: the row's snapshot with the appended moves folded in (migration 017).
    const after = (await findGame(client, id))!;
    await client.end();
    assert.equal(after.moveCount, 6);
    assert.ok(Number(after.hostEpoch) > Number(before.host_epoch), 'the survivor took the game over with a new epoch');
    const detail = await call(survivor, 'GET', `/games/${id}`, undefined, wt);
    assert.equal(detail.body.data.pgn, '1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6');

    // The survivor's spectator saw every move in order, across the takeover, numbered without a hole.
    const watching = spectators[nodes.indexOf(survivor)];
    const moves: Array<[number, string]> = [];
    while (moves.length < 6) {
      const m = await watching.next(undefined, 10_000);
      if (m.type === 'move') moves.push([m.v, m.move.san]);
    }
    assert.deepEqual(moves, [[1, 'e4'], [2, 'e5'], [3, 'Nf3'], [4, 'Nc6'], [5, 'Bc4'], [6, 'Nf6']]);
    assert.equal(spectators[nodes.indexOf(victim)].ws.readyState, spectators[0].ws.CLOSED, "the dead node's sockets are gone");
  });
});
