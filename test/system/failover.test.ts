import assert from 'node:assert/strict';
import {
  clusterRedisUrl,
  joinWhenServed,
  kill9,
  moveWhenServed,
  nodeIdOf,
  processNodes,
  queryRow,
  socketMove,
  storedGame,
} from '../helpers/cluster.ts';
import { postData, requestJson, startGameOverApi, type ServiceProcess } from '../support/process.ts';
import { WsClient } from '../helpers/ws.ts';

/**
 * Dead-node detection with real processes killed with SIGKILL (README, Failover). The leases run
 * for a minute, so a game that moves within seconds moved because its node was found dead (its
 * PostgreSQL session lock came free), not because a lease lapsed.
 */
describe('Failover: a killed node is replaced at once (real processes)', function () {
  this.timeout(120_000);
  const LEASE_SECONDS = 60;
  const TAKEOVER_WELL_BEFORE_LEASE_MS = 15_000;
  const cluster = processNodes({ env: { GAME_LEASE_SECONDS: String(LEASE_SECONDS) }, publicAddress: true });
  const start = (env: Record<string, string>, o: { port?: number } = {}) => cluster.start({ ...o, env });
  const play = (node: ServiceProcess, id: string, uci: string, token: string) =>
    postData(`${node.base}/v1`, `/games/${id}/moves`, { from: uci.slice(0, 2), to: uci.slice(2, 4) }, token);

  it("moves a killed node's game to the survivor without waiting for its lease: REST, a rejoining socket player and spectators lose nothing", async function () {
    const redisUrl = await clusterRedisUrl();
    if (!redisUrl) {
      console.warn('    SKIPPED: REDIS_URL is not set, so the two-node failover test did not run');
      return this.skip();
    }
    const a = await start({ REDIS_URL: redisUrl });
    const b = await start({ REDIS_URL: redisUrl });
    const { id, white, black } = await startGameOverApi(`${a.base}/v1`, `fo${Date.now() % 1e6}`);
    const wt = white.session.access_token;
    const bt = black.session.access_token;
    await play(a, id, 'e2e4', wt);
    await play(b, id, 'e7e5', bt);
    await play(a, id, 'g1f3', wt);

    const before = await queryRow(cluster.dbUrl, 'SELECT host, host_epoch FROM games WHERE id = $1', [id]);
    const ids = [await nodeIdOf(a), await nodeIdOf(b)];
    const victim = [a, b][ids.indexOf(before.host)];
    assert.ok(victim, `the game's host ${before.host} is one of ${ids}`);
    const survivor = victim === a ? b : a;
    const survivorId = ids[1 - ids.indexOf(before.host)];
    // Black plays over a socket to the game's node; a spectator watches from the survivor.
    const blackRoom = await joinWhenServed(victim, id, bt);
    const spectator = await WsClient.open(`ws://127.0.0.1:${survivor.port}/v1/games/${id}/stream`);
    assert.equal((await spectator.next('state')).v, 3);
    const blackLeft = new Promise<number>((resolve) => blackRoom.onLeave((code) => resolve(code)));

    const killedAt = Date.now();
    await kill9(victim);
    await blackLeft;
    // Black joins again by id through the survivor, and moves.
    const rejoined = await joinWhenServed(survivor, id, bt);
    const answer = await socketMove(rejoined, 'b8c6');
    assert.equal(answer.type, 'move:ok', JSON.stringify(answer.body));
    // White's REST move through the survivor.
    const rest = await moveWhenServed(survivor, id, 'f1c4', wt);
    assert.equal(rest.status, 200, JSON.stringify(rest.body));
    const tookMs = Date.now() - killedAt;
    assert.ok(tookMs < TAKEOVER_WELL_BEFORE_LEASE_MS, `play resumed ${tookMs} ms after the kill: the ${LEASE_SECONDS} s lease was not waited out`);

    const after = await storedGame(cluster.dbUrl, id);
    assert.equal(after.host, survivorId);
    assert.ok(Number(after.host_epoch) > Number(before.host_epoch), 'taken over with a new epoch');
    assert.equal(after.move_count, 5);
    assert.equal(after.pgn.trim(), '1. e4 e5 2. Nf3 Nc6 3. Bc4');
    const registered = await queryRow(cluster.dbUrl, 'SELECT array_agg(id ORDER BY id) AS ids FROM nodes');
    assert.deepEqual(registered.ids, [survivorId], "the dead node's row is gone, the survivor's stays");
    const seen: Array<[number, string]> = [];
    while (seen.length < 2) {
      const m = await spectator.next(undefined, 10_000);
      if (m.type === 'move') seen.push([m.v, m.move.san]);
    }
    assert.deepEqual(seen, [[4, 'Nc6'], [5, 'Bc4']], 'the survivor\'s spectator saw the moves after the kill, numbered on');
    await rejoined.leave();
    spectator.ws.close();
  });

  it("takes over its crashed predecessor's games and seek pool as soon as it is up (one node, restarted)", async () => {
    const first = await start({});
    const base = `${first.base}/v1`;
    const { id, white, black } = await startGameOverApi(base, `rs${Date.now() % 1e6}`);
    await play(first, id, 'e2e4', white.session.access_token);
    // A seek waits in its pool, on the same node.
    const tag = Date.now() % 1e6;
    const seeker = await postData(base, '/auth/signup', { email: `s${tag}@example.com`, password: 'process-test-1', username: `s${tag}` });
    const pool = { time_control: 'blitz', initial_time: 300, increment: 1, rated: true };
    const seek = await postData(base, '/games', { type: 'matchmaking', ...pool }, seeker.session.access_token);
    assert.equal(seek.status, 'pending');

    await kill9(first);
    const second = await start({}, { port: first.port });
    // Healthy means ready to play: the first attempt of each succeeds, with no 503 to wait out.
    const move = await requestJson(`${second.base}/v1`, 'POST', `/games/${id}/moves`, { from: 'e7', to: 'e5' }, black.session.access_token);
    assert.equal(move.status, 200, JSON.stringify(move.body));
    const room = await joinWhenServed(second, id, white.session.access_token, 0);
    assert.equal((await socketMove(room, 'g1f3')).type, 'move:ok');
    await room.leave();
    const other = await postData(`${second.base}/v1`, '/auth/signup', { email: `o${tag}@example.com`, password: 'process-test-1', username: `o${tag}` });
    const paired = await requestJson(`${second.base}/v1`, 'POST', '/games', { type: 'matchmaking', ...pool }, other.session.access_token);
    assert.equal(paired.status, 201, JSON.stringify(paired.body));
    assert.equal(paired.body.data.status, 'active', "paired at once with the seek waiting in the dead node's pool");
    assert.equal(paired.body.data.id, seek.id);
  });
});
