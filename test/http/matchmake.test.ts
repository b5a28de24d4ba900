import assert from 'node:assert/strict';
import { matchMaker } from '@colyseus/core';
import { Client, type Room } from '@colyseus/sdk';
import { poolId } from '../../src/domain/pairing.ts';
import { as, uniquePool } from '../helpers/games.ts';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import fc from 'fast-check';
import { expectNo500, malformedBodies, malformedBodyArbitrary, type MalformedBody } from '../helpers/malformed.ts';
import { testService } from '../helpers/service.ts';
import { createUser } from '../helpers/users.ts';

const pool = () => ({ ...uniquePool(), rated: true });

/** A failed /matchmake answer: the REST envelope and status, plus the SDK's top-level message. */
function expectRefusal(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  assert.equal(res.body?.success, false, res.text);
  assert.equal(res.body.error.code, code, res.text);
  assert.equal(typeof res.body.error.message, 'string');
  assert.equal(res.body.message, `${code}: ${res.body.error.message}`, 'the message the Colyseus SDK shows');
}

const seek = (options: object, o: { token?: string; ip?: string } = {}) =>
  api('POST', '/matchmake/joinOrCreate/seek_pool', { body: options, ip: o.ip ?? newIp(), token: o.token });

describe('/matchmake (Colyseus matchmaking over HTTP)', () => {
  it('answers unknown paths and methods with the 404 envelope, and other verbs on a known one with 405', async () => {
    for (const path of ['/matchmake', '/matchmake/', '/matchmake/joinById', '/matchmake/create/game', '/matchmake/a/b/c', '/matchmake/joinOrCreate/nope']) {
      const res = await api('POST', path, { body: {} });
      assert.equal(res.status, 404, `${path}: ${res.text}`);
      assert.equal(res.body.error.code, 'NOT_FOUND', path);
    }
    const get = await api('GET', '/matchmake/joinOrCreate/lobby');
    expectRefusal(get, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(get.headers.get('allow'), 'POST');
  });

  it('answers a seek without a token 401 UNAUTHORIZED (Colyseus said 523), with a bad one too', async () => {
    const none = await seek(pool());
    expectRefusal(none, 401, 'UNAUTHORIZED');
    assert.equal(none.headers.get('www-authenticate'), 'Bearer');
    expectRefusal(await seek({ ...pool(), token: 'not-a-token' }), 401, 'UNAUTHORIZED');
    expectRefusal(await seek(pool(), { token: 'not.a.jwt' }), 401, 'UNAUTHORIZED');
  });

  it('answers joinById of an unknown room 404 NOT_FOUND (Colyseus said 522)', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', 'x'.repeat(300)]) {
      expectRefusal(await api('POST', `/matchmake/joinById/${id}`, { body: {} }), 404, 'NOT_FOUND');
    }
  });

  it('answers a reconnect with an unknown room or token 404, without a token 400', async () => {
    const lobby = await api('POST', '/matchmake/joinOrCreate/lobby', { body: {} });
    assert.equal(lobby.status, 200, lobby.text);
    expectRefusal(await api('POST', '/matchmake/reconnect/nope', { body: { reconnectionToken: 'x' } }), 404, 'NOT_FOUND');
    expectRefusal(await api('POST', `/matchmake/reconnect/${lobby.body.roomId}`, { body: { reconnectionToken: 'forged' } }), 404, 'NOT_FOUND');
    expectRefusal(await api('POST', `/matchmake/reconnect/${lobby.body.roomId}`, { body: {} }), 400, 'VALIDATION_ERROR');
    const { service } = await testService();
    const sdk = new Client(service.url.replace('http', 'ws'));
    await (await sdk.consumeSeatReservation(lobby.body)).leave();
  });

  it('answers options that name no valid pool 400 VALIDATION_ERROR, naming the field', async () => {
    const user = await createUser();
    expectRefusal(await seek({ time_control: 'blitz' }, { token: user.accessToken }), 400, 'VALIDATION_ERROR');
    const mismatch = await seek({ time_control: 'bullet', initial_time: 300, increment: 0, rated: true }, { token: user.accessToken });
    expectRefusal(mismatch, 400, 'VALIDATION_ERROR');
    assert.deepEqual(Object.keys(mismatch.body.error.details), ['time_control']);
    const huge = await seek({ time_control: 'classical', initial_time: 10_000_000, increment: 0, rated: true }, { token: user.accessToken });
    expectRefusal(huge, 400, 'VALIDATION_ERROR');
    assert.deepEqual(Object.keys(huge.body.error.details), ['initial_time']);
  });

  it('answers a busy seeker 409 PLAYER_BUSY before any pool is made for them', async () => {
    const user = await createUser();
    const first = await api('POST', '/v1/games', as(user, { type: 'matchmaking', ...pool() }));
    assert.equal(first.body.data.status, 'pending', first.text);
    const busyPool = pool();
    expectRefusal(await seek(busyPool, { token: user.accessToken }), 409, 'PLAYER_BUSY');
    const id = poolId({ timeControl: busyPool.time_control, initialTime: busyPool.initial_time, increment: busyPool.increment, rated: true });
    assert.equal((await matchMaker.findRoomsByIds([id])).size, 0, 'no pool room was created for the refused seek');
  });

  it('answers bodies that are not a JSON object 400 and bodies over 64 KB 413, in the envelope', async () => {
    expectRefusal(await api('POST', '/matchmake/joinOrCreate/lobby', { rawBody: '{"token": ' }), 400, 'VALIDATION_ERROR');
    expectRefusal(await api('POST', '/matchmake/joinOrCreate/lobby', { body: ['x'] }), 400, 'VALIDATION_ERROR');
    expectRefusal(await api('POST', '/matchmake/joinOrCreate/lobby', { rawBody: 'token=x', headers: { 'content-type': 'text/plain' } }), 400, 'VALIDATION_ERROR');
    expectRefusal(await api('POST', '/matchmake/joinOrCreate/lobby', { body: { token: 'x'.repeat(70 * 1024) } }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('answers malformed bodies on every route with a 4xx envelope, never 5xx', async function () {
    this.timeout(60_000);
    const user = await createUser();
    const fields = ['time_control', 'initial_time', 'increment', 'rated', 'color', 'token', 'reconnectionToken'];
    for (const path of ['/matchmake/joinOrCreate/seek_pool', '/matchmake/joinById/00000000-0000-4000-8000-000000000000', '/matchmake/reconnect/abc']) {
      await expectNo500('POST', path, { fields, runs: 25 });
    }
    // With a token the seek gets past the token check: a new user every 8 bodies stays under the limit.
    let sent = 0;
    let token = user.accessToken;
    const send = async (c: MalformedBody) => {
      if (++sent % 8 === 0) token = (await createUser()).accessToken;
      const res = await api('POST', '/matchmake/joinOrCreate/seek_pool', { rawBody: c.rawBody, headers: c.headers, token, ip: newIp() });
      const what = `${c.name} → ${res.status} ${res.text.slice(0, 200)}`;
      assert.ok(res.status >= 400 && res.status < 500, what);
      assert.notEqual(res.body?.error?.code, 'RATE_LIMIT_EXCEEDED', what);
      assert.equal(res.body?.success, false, what);
    };
    for (const c of malformedBodies(fields)) await send(c);
    await fc.assert(fc.asyncProperty(malformedBodyArbitrary(fields), send), { numRuns: 25 });
  });

  it('lets the SDK show the refusal: MatchMakeError with "CODE: message" and the HTTP status', async () => {
    const { service } = await testService();
    const sdk = new Client(service.url.replace('http', 'ws'), { headers: { 'x-forwarded-for': newIp() } });
    await assert.rejects(sdk.joinOrCreate('seek_pool', pool()), (err: Error & { code?: number }) => {
      assert.match(err.message, /^UNAUTHORIZED: /);
      assert.equal(err.code, 401);
      return true;
    });
  });

  describe('limits', () => {
    it('counts a socket seek against the same per-user limit as a REST one: the 11th in a minute is 429', async () => {
      const user = await createUser();
      const ip = newIp();
      for (let i = 0; i < 5; i++) {
        const rest = await api('POST', '/v1/games', as(user, { type: 'matchmaking', time_control: 'blitz', initial_time: 300, increment: 99 }));
        assert.equal(rest.status, 400, 'a refused REST seek still counts');
      }
      for (let i = 0; i < 5; i++) {
        expectRefusal(await seek({ time_control: 'blitz' }, { token: user.accessToken, ip }), 400, 'VALIDATION_ERROR');
      }
      const over = await seek(pool(), { token: user.accessToken, ip });
      expectRefusal(over, 429, 'RATE_LIMIT_EXCEEDED');
      assert.ok(Number(over.headers.get('retry-after')) >= 1);
      assert.ok(over.body.error.retryAfter >= 1);
    });

    it('caps the socket seeks of one address at 30 a minute, whatever accounts it uses', async () => {
      const ip = newIp();
      for (let i = 0; i < 30; i++) expectRefusal(await seek(pool(), { ip }), 401, 'UNAUTHORIZED');
      const user = await createUser();
      expectRefusal(await seek(pool(), { token: user.accessToken, ip }), 429, 'RATE_LIMIT_EXCEEDED');
      expectRefusal(await seek({ time_control: 'blitz' }, { token: user.accessToken }), 400, 'VALIDATION_ERROR');
    });

    it('keeps one account from raising the number of live pools beyond a small bound, and idle pools go', async function () {
      this.timeout(20_000);
      const { service } = await testService();
      const user = await createUser();
      const sdk = new Client(service.url.replace('http', 'ws'), { headers: { 'x-forwarded-for': newIp() } });
      const base = 900 + Math.floor(Math.random() * 9000);
      const keys = Array.from({ length: 200 }, (_, i) => ({ time_control: 'classical', initial_time: 1500 + ((base + i) % 9000), increment: 0, rated: true }));
      let joined = 0;
      let refused = 0;
      // Join a new pool and leave at once, 200 times: the finding's attack.
      for (const key of keys) {
        try {
          const room: Room = await sdk.joinOrCreate('seek_pool', { ...key, token: user.accessToken });
          joined++;
          await room.leave();
        } catch (err) {
          assert.match((err as Error).message, /^RATE_LIMIT_EXCEEDED: /);
          refused++;
        }
      }
      assert.equal(joined, 10, 'the matchmaking limit lets 10 seeks a minute through');
      assert.equal(refused, 190);
      const ids = keys.map((k) => poolId({ timeControl: 'classical', initialTime: k.initial_time, increment: 0, rated: true }));
      const live = async () => (await matchMaker.findRoomsByIds(ids)).size;
      const afterBurst = await live();
      assert.ok(afterBurst >= 1 && afterBurst <= 10, `${afterBurst} pools live after the burst: at most one per seek let through`);
      // SEEK_POOL_IDLE_SECONDS is 1 in tests: the pools go within about two seconds of the last leave.
      const until = Date.now() + 5000;
      while ((await live()) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
      assert.equal(await live(), 0, 'idle pools disposed');
      const { rows } = await service.ctx.pool.query('SELECT count(*)::int AS n FROM seek_pools WHERE pool = ANY($1) AND host IS NOT NULL', [ids]);
      assert.equal(rows[0].n, 0, 'their leases were released');
    });
  });

  describe('CORS', () => {
    it('answers a real preflight of the SDK from another origin, echoing it with credentials (the SDK sends them)', async () => {
      const res = await api('OPTIONS', '/matchmake/joinOrCreate/lobby', {
        headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization' },
      });
      assert.equal(res.status, 204);
      assert.equal(res.headers.get('access-control-allow-origin'), 'https://app.example');
      assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
      assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
      assert.match(res.headers.get('access-control-allow-headers') ?? '', /Authorization/i);
      assert.match(res.headers.get('vary') ?? '', /Origin/);
    });
  });
});
