import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import pg from 'pg';
import WebSocket from 'ws';
import { createDatabase } from '../support/database.ts';
import { postData, requestJson, startServiceProcess, type ServiceProcess } from '../support/process.ts';
import { testService } from '../helpers/service.ts';

/**
 * What a stranger can make the service log: `npm start`'s process at LOG_LEVEL=info, fed junk
 * frames, oversized frames, forged seats, refused joins, malformed requests and a game whose lease
 * another node holds. Client mistakes and contention are counted in /metrics; none of them may
 * reach the log as an error or with a stack trace.
 */
describe('log flooding', function () {
  this.timeout(60_000);
  let db: { url: string; drop: () => Promise<void> };
  let svc: ServiceProcess;
  const lines: string[] = [];

  before(async () => {
    const { db: harness } = await testService();
    db = await createDatabase(harness.serverUrl);
    svc = await startServiceProcess(db.url, { env: { LOG_LEVEL: 'info', GAME_LEASE_SECONDS: '3' }, onStdoutLine: (l) => lines.push(l) });
  });

  after(async () => {
    svc?.child.kill('SIGTERM');
    await svc?.exited;
    await db?.drop();
  });

  const refusals = async () => {
    const text = await (await fetch(`${svc.base}/metrics`)).text();
    return Object.fromEntries([...text.matchAll(/^chess_refusals_total\{kind="(\w+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]));
  };

  async function lobbySocket(): Promise<WebSocket> {
    const seat = (await requestJson(svc.base, 'POST', '/matchmake/joinOrCreate/lobby', {})).body; // a seat reservation, outside the envelope
    const ws = new WebSocket(`ws://127.0.0.1:${svc.port}/${seat.processId}/${seat.roomId}?sessionId=${seat.sessionId}`);
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    ws.send(Uint8Array.of(10)); // the SDK's acknowledgement of the join
    return ws;
  }

  it('counts junk, forged seats, refused joins and lease contention, and logs none of it as an error or with a stack', async () => {
    // 1,000 random frames from anonymous lobby sockets (a socket is closed after 20 malformed ones).
    let ws = await lobbySocket();
    for (let i = 0; i < 1000; i++) {
      if (ws.readyState !== WebSocket.OPEN) ws = await lobbySocket();
      ws.send(i % 2 ? randomBytes(randomInt(1, 40)) : Buffer.concat([Uint8Array.of(13), randomBytes(randomInt(0, 40))]));
      if (i % 25 === 0) await new Promise((r) => setTimeout(r, 2));
    }
    // Frames over the 4 KB limit, and seats nobody reserved.
    for (let i = 0; i < 3; i++) {
      const big = await lobbySocket();
      big.send(randomBytes(5000));
      await new Promise((r) => big.once('close', r));
    }
    for (let i = 0; i < 3; i++) {
      const forged = new WebSocket(`ws://127.0.0.1:${svc.port}/abc/def?sessionId=${randomBytes(4).toString('hex')}`);
      await new Promise((r) => (forged.once('close', r), forged.once('error', r)));
    }
    // Refused joins and malformed requests.
    for (const [path, body] of [
      ['/matchmake/joinOrCreate/seek_pool', { time_control: 'blitz', initial_time: 300, increment: 0, rated: true }],
      ['/matchmake/joinById/nope', {}],
      ['/matchmake/reconnect/nope', { reconnectionToken: 'x' }],
      ['/v1/games/not-a-game/moves', { from: 'zz' }],
    ] as const) {
      assert.ok((await requestJson(svc.base, 'POST', path, body)).status < 500, path);
    }
    // A game whose lease another node holds: the moves are told to retry, the creation attempts are refused.
    const base = `${svc.base}/v1`;
    const n = randomBytes(3).toString('hex');
    const a = await postData(base, '/auth/signup', { email: `la${n}@example.com`, password: 'lease-test-1', username: `la${n}` });
    const b = await postData(base, '/auth/signup', { email: `lb${n}@example.com`, password: 'lease-test-1', username: `lb${n}` });
    const game = await postData(base, '/games', { type: 'challenge', opponent_id: b.user.id, time_control: 'blitz', initial_time: 300, increment: 0, color: 'white' }, a.session.access_token);
    await postData(base, `/games/${game.id}/accept`, {}, b.session.access_token);
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    await sql.query(`UPDATE games SET host = 'another-node', host_epoch = host_epoch + 1, lease_expires_at = now() + interval '1 minute' WHERE id = $1`, [game.id]);
    await sql.end();
    for (let i = 0; (await refusals()).lease_held === 0 && i < 20; i++) {
      const move = await requestJson(base, 'POST', `/games/${game.id}/moves`, { from: 'e2', to: 'e4' }, a.session.access_token);
      assert.equal(move.status, 503, JSON.stringify(move.body));
    }

    const counted = await refusals();
    assert.ok(counted.malformed_frame >= 900, JSON.stringify(counted));
    assert.ok(counted.socket_error >= 3, JSON.stringify(counted));
    assert.ok(counted.join_refused >= 3, JSON.stringify(counted));
    assert.ok(counted.lease_held >= 1, JSON.stringify(counted));
    const parsed = lines.map((l) => JSON.parse(l) as { level: number; msg?: string });
    const errors = parsed.filter((l) => l.level >= 50);
    assert.deepEqual(errors, [], 'nothing logged at error or above');
    const stacks = lines.filter((l) => /\\n\s+at |"stack"/.test(l));
    assert.deepEqual(stacks, [], 'no stack trace logged');
    assert.ok(lines.length < 60, `${lines.length} lines for a flood of client mistakes`);
  });
});
