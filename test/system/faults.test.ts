import assert from 'node:assert/strict';
import { createDatabase } from '../support/database.ts';
import { CLUSTER_ENV, joinWhenServed, moveWhenServed, nodeIdOf, queryRow, socketMove, storedGame } from '../helpers/cluster.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/privatePostgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../helpers/privateRedis.ts';
import { postData, requestJson, startGameOverApi, startServiceProcess, type ServiceProcess } from '../support/process.ts';
import { until } from '../helpers/poll.ts';
import { testService } from '../helpers/service.ts';
import { WsClient } from '../helpers/ws.ts';

/**
 * The parts' own faults, with real processes and servers of the test's own (README, Failover):
 * PostgreSQL restarted mid-game, Redis restarted under two nodes, a node paused past its lease.
 */
describe('Faults of the parts: PostgreSQL and Redis restarted, a node paused (real processes)', function () {
  this.timeout(120_000);
  let nodes: ServiceProcess[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];

  afterEach(async () => {
    for (const n of nodes) if (n.child.exitCode === null) n.child.kill('SIGKILL');
    await Promise.all(nodes.map((n) => n.exited));
    nodes = [];
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  const start = async (databaseUrl: string, env: Record<string, string>) => {
    const node = await startServiceProcess(databaseUrl, { env: { ...CLUSTER_ENV, ...env }, publicAddress: true });
    nodes.push(node);
    return node;
  };
  const play = (node: ServiceProcess, id: string, uci: string, token: string) =>
    postData(`${node.base}/v1`, `/games/${id}/moves`, { from: uci.slice(0, 2), to: uci.slice(2, 4) }, token);

  it('PostgreSQL restarted mid-game: moves are refused with 503 and Retry-After meanwhile, then resume; nothing acknowledged is lost', async () => {
    const pg: PrivatePostgres = await startPrivatePostgres();
    cleanups.push(pg.destroy);
    const node = await start(pg.url, { GAME_LEASE_SECONDS: '60' });
    const { id, white, black } = await startGameOverApi(`${node.base}/v1`, `pg${Date.now() % 1e6}`);
    const wt = white.session.access_token;
    const bt = black.session.access_token;
    await play(node, id, 'e2e4', wt);
    const blackRoom = await joinWhenServed(node, id, bt);
    const nodeId = await nodeIdOf(node);

    await pg.stop();
    const during = await requestJson(`${node.base}/v1`, 'POST', `/games/${id}/moves`, { from: 'e7', to: 'e5' }, bt);
    assert.equal(during.status, 503, JSON.stringify(during.body));
    assert.equal(during.headers.get('retry-after'), '1');
    assert.equal(during.body.error.code, 'SERVICE_UNAVAILABLE');
    // A socket move cannot be made durable either: it is not acknowledged, and the room, which
    // can no longer tell whether its state matches the database, sends its players to rejoin.
    const socketLeft = new Promise<number>((resolve) => blackRoom.onLeave((code) => resolve(code)));
    const refused = await Promise.race([socketMove(blackRoom, 'e7e5').then((a) => a.type, () => 'no answer'), socketLeft.then(() => 'left')]);
    assert.notEqual(refused, 'move:ok');
    assert.equal(await socketLeft, 4503, 'close code 4503: join the game again');
    assert.equal(node.child.exitCode, null, 'the node rides the outage out');

    await pg.start();
    const rejoined = await joinWhenServed(node, id, bt);
    assert.equal((await socketMove(rejoined, 'e7e5')).type, 'move:ok');
    assert.equal((await moveWhenServed(node, id, 'g1f3', wt)).status, 200);
    await rejoined.leave();
    const game = await storedGame(pg.url, id);
    assert.deepEqual([game.move_count, game.pgn.trim()], [3, '1. e4 e5 2. Nf3']);
    // The node took its lock back on a new session and is registered again.
    await until('the node registered again', async () => (await queryRow(pg.url, 'SELECT id FROM nodes WHERE id = $1', [nodeId]))?.id === nodeId);
  });

  it('Redis restarted empty under two nodes: games go on, the nodes find each other and every spectator gets every move', async function () {
    const redis: PrivateRedis | undefined = await startPrivateRedis();
    if (!redis) {
      console.warn('    SKIPPED: redis-server is not installed, so the Redis restart test did not run');
      return this.skip();
    }
    cleanups.push(redis.destroy);
    const { db: harness } = await testService();
    const db = await createDatabase(harness.serverUrl);
    cleanups.push(db.drop);
    const env = { REDIS_URL: redis.url, GAME_LEASE_SECONDS: '60' };
    const a = await start(db.url, env);
    const b = await start(db.url, env);
    const { id, white, black } = await startGameOverApi(`${a.base}/v1`, `rd${Date.now() % 1e6}`);
    const wt = white.session.access_token;
    const bt = black.session.access_token;
    await play(a, id, 'e2e4', wt);
    const before = await queryRow(db.url, 'SELECT host, host_epoch FROM games WHERE id = $1', [id]);
    const ids = [await nodeIdOf(a), await nodeIdOf(b)];
    // The node that does not host the game reaches it only through Redis (listing and pub/sub).
    const [host, other] = before.host === ids[0] ? [a, b] : [b, a];
    const spectators = await Promise.all([host, other].map((n) => WsClient.open(`ws://127.0.0.1:${n.port}/v1/games/${id}/stream`)));
    for (const s of spectators) await s.next('state');

    await redis.stop();
    const during = await requestJson(`${other.base}/v1`, 'POST', `/games/${id}/moves`, { from: 'e7', to: 'e5' }, bt);
    assert.equal(during.status, 503, JSON.stringify(during.body));
    await redis.start();

    assert.equal((await moveWhenServed(other, id, 'e7e5', bt)).status, 200);
    assert.equal((await moveWhenServed(other, id, 'g1f3', wt)).status, 200);
    assert.equal((await moveWhenServed(host, id, 'b8c6', bt)).status, 200);
    const after = await storedGame(db.url, id);
    assert.deepEqual([after.host, after.host_epoch, after.move_count], [before.host, before.host_epoch, 4], 'the game never left its node');
    for (const [i, s] of spectators.entries()) {
      const moves: Array<[number, string]> = [];
      while (moves.length < 3) {
        const m = await s.next(undefined, 10_000);
        if (m.type === 'move') moves.push([m.v, m.move.san]);
      }
      assert.deepEqual(moves, [[2, 'e5'], [3, 'Nf3'], [4, 'Nc6']], `spectator ${i} got every move in order`);
      s.ws.close();
    }
    assert.deepEqual([a.child.exitCode, b.child.exitCode], [null, null], 'both nodes rode the outage out');
  });

  it('a node paused (SIGSTOP) past its lease can no longer write when it resumes: its queued move is refused, the game plays on elsewhere', async function () {
    const redis: PrivateRedis | undefined = await startPrivateRedis();
    if (!redis) {
      console.warn('    SKIPPED: redis-server is not installed, so the paused-node test did not run');
      return this.skip();
    }
    cleanups.push(redis.destroy);
    const { db: harness } = await testService();
    const db = await createDatabase(harness.serverUrl);
    cleanups.push(db.drop);
    const env = { REDIS_URL: redis.url, GAME_LEASE_SECONDS: '2' };
    const a = await start(db.url, env);
    const b = await start(db.url, env);
    const { id, white, black } = await startGameOverApi(`${a.base}/v1`, `ss${Date.now() % 1e6}`);
    const wt = white.session.access_token;
    const bt = black.session.access_token;
    await play(a, id, 'e2e4', wt);
    const before = await queryRow(db.url, 'SELECT host, host_epoch FROM games WHERE id = $1', [id]);
    const ids = [await nodeIdOf(a), await nodeIdOf(b)];
    const [paused, other] = before.host === ids[0] ? [a, b] : [b, a];
    const blackRoom = await joinWhenServed(paused, id, bt);
    const answers: string[] = [];
    blackRoom.onMessage('move:ok', () => answers.push('move:ok'));
    const closed = new Promise<number>((resolve) => blackRoom.onLeave((code) => resolve(code)));

    paused.child.kill('SIGSTOP');
    try {
      // Sent while its node is paused: it waits in the socket.
      blackRoom.send('move', { from: 'd7', to: 'd5', id: 99 });
      // Meanwhile the lease lapses and the other node takes the game over; Black plays e5 there.
      assert.equal((await moveWhenServed(other, id, 'e7e5', bt, 30_000)).status, 200);
    } finally {
      paused.child.kill('SIGCONT');
    }
    assert.equal(await closed, 4503, 'the resumed room is fenced out and sends its players to the new host');
    assert.deepEqual(answers, [], 'the move queued on the paused node was never acknowledged');
    assert.equal((await moveWhenServed(paused, id, 'g1f3', wt)).status, 200, 'the resumed node reaches the game on its new host');
    const after = await storedGame(db.url, id);
    assert.equal(after.host, before.host === ids[0] ? ids[1] : ids[0]);
    assert.ok(Number(after.host_epoch) > Number(before.host_epoch));
    assert.deepEqual([after.move_count, after.pgn.trim()], [3, '1. e4 e5 2. Nf3'], "the paused node's d5 never landed");
    const rejoined = await joinWhenServed(paused, id, bt);
    assert.equal((await socketMove(rejoined, 'b8c6')).type, 'move:ok', 'joining through the resumed node seats Black in the new room');
    await rejoined.leave();
  });
});
