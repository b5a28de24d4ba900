import assert from 'node:assert/strict';
import http from 'node:http';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { until } from '../helpers/poll.ts';
import { testService } from '../helpers/service.ts';
import { createUser } from '../helpers/users.ts';
import { createPool } from '../../src/db/pool.ts';
import { insertFinishedGames, insertUser } from '../support/fixtures.ts';

// The limits of GET /users/{id}/games/export (DESIGN 2.12; docs/operations.md, security): a client
// that takes nothing is hung up on after EXPORT_IDLE_SECONDS, and exports run at most
// EXPORTS_PER_ADDRESS at once from one address and EXPORTS_PER_NODE on a node. Real clients: one
// that stops reading (its response paused, so the kernel's buffers fill), and exports held open at
// once. The shared service runs with EXPORT_IDLE_SECONDS=5, EXPORTS_PER_NODE=3, EXPORTS_PER_ADDRESS=2.

/** The service's /metrics, by name. */
async function metrics(): Promise<Map<string, number>> {
  const { service } = await testService();
  const text = await (await fetch(`${service.url}/metrics`)).text();
  return new Map([...text.matchAll(/^(\w+) (\S+)$/gm)].map((m) => [m[1], Number(m[2])]));
}
const metric = async (name: string) => (await metrics()).get(name) ?? assert.fail(`${name} missing from /metrics`);

type Held = { req: http.ClientRequest; res: http.IncomingMessage; closed: Promise<void> };

/** An export whose client reads its first bytes and then nothing: the response is paused. `closed`: the connection is gone. */
function holdExport(userId: string, headers: Record<string, string>): Promise<Held> {
  return new Promise(async (resolve, reject) => {
    const { service } = await testService();
    const req = http.get(`${service.url}/v1/users/${userId}/games/export?opening=false`, { headers }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`export answered ${res.statusCode}`));
      const closed = new Promise<void>((done) => res.once('close', done));
      res.once('data', () => {
        res.pause();
        resolve({ req, res, closed });
      });
    });
    req.on('error', () => {}); // the server's hang-up, expected
  });
}

const exportOnce = (userId: string, o: { ip: string; token?: string }): Promise<ApiResponse> =>
  api('GET', `/v1/users/${userId}/games/export?max=1`, { ip: o.ip, token: o.token });

function assertRefused(res: ApiResponse, message: RegExp): void {
  assert.equal(res.status, 429, res.text);
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, 'EXPORT_IN_PROGRESS');
  assert.match(res.body.error.message, message);
  assert.ok(Number(res.headers.get('retry-after')) >= 1, 'Retry-After');
}

describe('the limits of a game export', function () {
  this.timeout(120_000);
  // About 3.9 KB of PGN a game: 23 MB, far more than the sockets' buffers between test and service hold.
  const COUNT = 6000;
  let heavy: string;
  const held: Held[] = [];
  before(async () => {
    const { db } = await testService();
    const pool = createPool(db.url, 1, { statementTimeoutMs: 0 });
    try {
      heavy = await insertUser(pool);
      await insertFinishedGames(pool, { whiteId: heavy, blackId: await insertUser(pool), count: COUNT, plies: 120, newestEnd: new Date() });
    } finally {
      await pool.end();
    }
  });

  afterEach(async () => {
    for (const h of held.splice(0)) h.req.destroy();
    await until('no export to run', async () => (await metric('chess_exports_active')) === 0);
  });

  it('hangs up on a client that takes nothing for EXPORT_IDLE_SECONDS, freeing its slot and its connection', async () => {
    const { config } = await testService();
    const ip = newIp();
    const idleBefore = await metric('chess_exports_idle_total');
    const h = await holdExport(heavy, { 'x-forwarded-for': ip });
    held.push(h);
    // The export fills the buffers and waits for the client.
    await until('the export to wait for its client', async () => (await metric('chess_exports_waiting')) === 1, { everyMs: 50 });
    const blockedAt = Date.now();
    await until('the export to end', async () => (await metric('chess_exports_idle_total')) > idleBefore, { everyMs: 50 });
    const waited = Date.now() - blockedAt;
    assert.ok(waited >= config.exportIdleMs - 500 && waited < config.exportIdleMs + 5000, `hung up ${waited} ms after the client stopped taking`);
    assert.equal(await metric('chess_exports_active'), 0);
    // The connection was reset: a client reading again gets what it had been sent, then the break.
    h.res.on('data', () => {});
    h.res.resume();
    await h.closed;
    assert.equal(h.res.complete, false, 'the body never ended: the client can tell it is cut short');
    // The slot is free: the same caller exports again at once.
    const again = await exportOnce(heavy, { ip });
    assert.equal(again.status, 200, again.text);
  });

  it('keeps an export whose client reads in bursts, longer in all than the deadline but never idle that long', async () => {
    const { service, config } = await testService();
    const started = Date.now();
    let bytes = 0;
    const complete = await new Promise<boolean>((resolve) => {
      http.get(`${service.url}/v1/users/${heavy}/games/export?opening=false`, { headers: { 'x-forwarded-for': newIp() } }, (res) => {
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.pause();
        // A tenth of a second's reading every half of the deadline.
        const pace = setInterval(() => {
          res.resume();
          setTimeout(() => res.pause(), 100);
        }, config.exportIdleMs / 2);
        res.once('close', () => (clearInterval(pace), resolve(res.complete)));
      });
    });
    const took = Date.now() - started;
    assert.equal(complete, true, `read ${bytes} bytes in ${took} ms`);
    assert.ok(took > config.exportIdleMs, `the export took ${took} ms, more than the ${config.exportIdleMs} ms deadline`);
  });

  it(`runs at most EXPORTS_PER_ADDRESS exports at once from one address, whoever asks: the next is 429 with Retry-After`, async () => {
    const { config } = await testService();
    const ip = newIp();
    const users = await Promise.all(Array.from({ length: config.exportsPerAddress + 1 }, () => createUser()));
    // Each its own caller (a token each): only the address is shared.
    for (const u of users.slice(0, config.exportsPerAddress)) {
      held.push(await holdExport(heavy, { 'x-forwarded-for': ip, authorization: `Bearer ${u.accessToken}` }));
    }
    const refusedBefore = await metric('chess_exports_refused_total');
    assertRefused(await exportOnce(heavy, { ip, token: users.at(-1)!.accessToken }), /from one address/);
    assertRefused(await exportOnce(heavy, { ip }), /from one address/);
    assert.equal((await metric('chess_exports_refused_total')) - refusedBefore, 2);
    // Another address is not held up.
    assert.equal((await exportOnce(heavy, { ip: newIp() })).status, 200);
    // One ends: the address may start another.
    held.shift()!.req.destroy();
    await until('an export of the address to end', async () => (await metric('chess_exports_active')) === config.exportsPerAddress - 1);
    assert.equal((await exportOnce(heavy, { ip, token: users.at(-1)!.accessToken })).status, 200);
  });

  it('runs at most EXPORTS_PER_NODE exports at once on a node, from any addresses: the next is 429 with Retry-After', async () => {
    const { config } = await testService();
    for (let i = 0; i < config.exportsPerNode; i++) held.push(await holdExport(heavy, { 'x-forwarded-for': newIp() }));
    assert.equal(await metric('chess_exports_active'), config.exportsPerNode);
    assertRefused(await exportOnce(heavy, { ip: newIp() }), /exports at once/);
    held.shift()!.req.destroy();
    await until('one export to end', async () => (await metric('chess_exports_active')) === config.exportsPerNode - 1);
    assert.equal((await exportOnce(heavy, { ip: newIp() })).status, 200);
  });
});
