import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import {
  IDEMPOTENCY_STALE_MS,
  IDEMPOTENCY_TTL_MS,
  claimIdempotencyKey,
  completeIdempotencyKey,
  deleteExpiredIdempotencyKeys,
  findIdempotencyKey,
  releaseIdempotencyKey,
} from '../../src/db/idempotency.ts';
import type { Pool } from '../../src/db/pool.ts';
import { AppError } from '../../src/errors.ts';
import { createHttpApp } from '../../src/http/app.ts';
import { createIdempotency } from '../../src/http/idempotency.ts';
import { HttpAnswer, route } from '../../src/http/route.ts';
import { createLogger } from '../../src/logger.ts';
import { systemClock, type Clock } from '../../src/time.ts';
import { BLITZ, as, createActiveGame, getGame, sendChallenge, sendMove } from '../helpers/games.ts';
import { api, newIp, type ApiOptions, type ApiResponse } from '../helpers/http.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { testService } from '../helpers/service.ts';
import { createUser, uniqueEmail, uniqueUsername, type TestUser } from '../helpers/users.ts';

const withKey = (key: string, o: ApiOptions): ApiOptions => ({ ...o, headers: { ...o.headers, 'Idempotency-Key': key } });
const challengeBody = (to: TestUser) => ({ type: 'challenge', opponent_id: to.id, ...BLITZ, color: 'white' });
const challengeWithKey = (from: TestUser, to: TestUser, key: string, path = '/v1/games') =>
  api('POST', path, withKey(key, as(from, challengeBody(to))));
const moveWithKey = (gameId: string, mover: TestUser, key: string, from: string, to: string) =>
  api('POST', `/v1/games/${gameId}/moves`, withKey(key, as(mover, { from, to })));

async function gamesCreatedBy(user: TestUser): Promise<number> {
  const { service } = await testService();
  const { rows } = await service.ctx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM games WHERE created_by = $1', [user.id]);
  return rows[0].n;
}

/** The same answer, byte for byte: status, body, content type. */
function assertSameAnswer(a: ApiResponse, b: ApiResponse) {
  assert.equal(b.status, a.status);
  assert.equal(b.text, a.text);
  assert.equal(b.headers.get('content-type'), a.headers.get('content-type'));
}

describe('Idempotency-Key', () => {
  describe('over the API', () => {
    let a: TestUser;
    let b: TestUser;
    beforeEach(async () => {
      [a, b] = await Promise.all([createUser(), createUser()]);
    });

    it('(without a key, the same challenge sent twice creates two games)', async () => {
      assert.equal((await sendChallenge(a, b)).status, 201);
      assert.equal((await sendChallenge(a, b)).status, 201);
      assert.equal(await gamesCreatedBy(a), 2);
    });

    it('answers a challenge retried with the same key with the first answer, and creates one game', async () => {
      const key = randomUUID();
      const first = await challengeWithKey(a, b, key);
      assert.equal(first.status, 201, first.text);
      assert.equal(first.headers.get('idempotent-replayed'), null);
      const retry = await challengeWithKey(a, b, key);
      assertSameAnswer(first, retry);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal(await gamesCreatedBy(a), 1);
    });

    it('treats the same request under /api and /v1 as one', async () => {
      const key = randomUUID();
      const first = await challengeWithKey(a, b, key, '/v1/games');
      const retry = await challengeWithKey(a, b, key, '/api/games');
      assertSameAnswer(first, retry);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal(await gamesCreatedBy(a), 1);
    });

    it('applies a move retried with the same key once: the retry gets the same 200, not NOT_YOUR_TURN', async () => {
      const game = await createActiveGame(a, b); // a is White
      const key = randomUUID();
      const first = await moveWithKey(game.id, a, key, 'e2', 'e4');
      assert.equal(first.status, 200, first.text);
      const retry = await moveWithKey(game.id, a, key, 'e2', 'e4');
      assertSameAnswer(first, retry);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      const after = (await getGame(game.id, a)).body.data;
      assert.equal(after.move_count, 1);
      assert.equal(after.current_turn, 'black');
    });

    it('refuses the same key with another request: 409 IDEMPOTENCY_KEY_REUSED, and nothing is done', async () => {
      const c = await createUser();
      const key = randomUUID();
      assert.equal((await challengeWithKey(a, b, key)).status, 201);
      const other = await challengeWithKey(a, c, key);
      assert.equal(other.status, 409, other.text);
      assert.equal(other.body.success, false);
      assert.equal(other.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
      assert.equal(await gamesCreatedBy(a), 1);
      const { service } = await testService();
      const { rows } = await service.ctx.pool.query('SELECT 1 FROM games WHERE black_id = $1 OR white_id = $1', [c.id]);
      assert.equal(rows.length, 0);
    });

    it('refuses a key used on one route when it comes back on another', async () => {
      const game = await createActiveGame(a, b);
      const key = randomUUID();
      assert.equal((await moveWithKey(game.id, a, key, 'e2', 'e4')).status, 200);
      const other = await api('POST', `/v1/games/${game.id}/resign`, withKey(key, as(a)));
      assert.equal(other.status, 409, other.text);
      assert.equal(other.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
      assert.equal((await getGame(game.id, a)).body.data.status, 'active');
    });

    it("keeps each user's keys apart: another user's request with the same key acts on its own", async () => {
      const c = await createUser();
      const key = randomUUID();
      const fromA = await challengeWithKey(a, c, key);
      const fromB = await challengeWithKey(b, c, key);
      assert.equal(fromA.status, 201, fromA.text);
      assert.equal(fromB.status, 201, fromB.text);
      assert.equal(fromB.headers.get('idempotent-replayed'), null);
      assert.notEqual(fromA.body.data.id, fromB.body.data.id);
      assert.equal(await gamesCreatedBy(a), 1);
      assert.equal(await gamesCreatedBy(b), 1);
    });

    it('replays a 4xx answer too, even once the request would now succeed', async () => {
      const game = await createActiveGame(a, b); // a is White: Black cannot move yet
      const key = randomUUID();
      const early = await moveWithKey(game.id, b, key, 'e7', 'e5');
      assert.equal(early.status, 403, early.text);
      assert.equal(early.body.error.code, 'NOT_YOUR_TURN');
      assert.equal((await sendMove(game, a, 'e2', 'e4')).status, 200);
      const retry = await moveWithKey(game.id, b, key, 'e7', 'e5');
      assertSameAnswer(early, retry);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal((await getGame(game.id, a)).body.data.move_count, 1);
    });

    it('refuses a key longer than 255 characters or empty: 400 VALIDATION_ERROR naming the header, and does nothing', async () => {
      for (const key of ['k'.repeat(256), '']) {
        const res = await challengeWithKey(a, b, key);
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.error.code, 'VALIDATION_ERROR');
        const messages = res.body.error.details['Idempotency-Key'];
        assert.ok(Array.isArray(messages) && messages.length > 0 && messages.every((m: unknown) => typeof m === 'string'), res.text);
      }
      assert.equal(await gamesCreatedBy(a), 0);
      const longest = await challengeWithKey(a, b, 'k'.repeat(255));
      assert.equal(longest.status, 201, longest.text);
    });

    it('acts once for two identical requests sent at the same time; both get the same answer', async () => {
      const key = randomUUID();
      const [one, two] = await Promise.all([challengeWithKey(a, b, key), challengeWithKey(a, b, key)]);
      assert.equal(one.status, 201, one.text);
      assertSameAnswer(one, two);
      const replayed = [one, two].map((r) => r.headers.get('idempotent-replayed'));
      assert.deepEqual(replayed.sort(), ['true', null].sort());
      assert.equal(await gamesCreatedBy(a), 1);
    });

    it('forgets a key after 24 h: the same request acts again', async () => {
      const { service } = await testService();
      const key = randomUUID();
      const first = await challengeWithKey(a, b, key);
      assert.equal(first.status, 201);
      await service.ctx.pool.query(
        `UPDATE idempotency_keys SET created_at = created_at - make_interval(secs => $3) WHERE user_id = $1 AND key = $2`,
        [a.id, key, IDEMPOTENCY_TTL_MS / 1000],
      );
      const again = await challengeWithKey(a, b, key);
      assert.equal(again.status, 201, again.text);
      assert.equal(again.headers.get('idempotent-replayed'), null);
      assert.notEqual(again.body.data.id, first.body.data.id);
      assert.equal(await gamesCreatedBy(a), 2);
    });

    it('ignores the header on anonymous requests (signup): keys are per user', async () => {
      const signup = () =>
        api('POST', '/v1/auth/signup', {
          ip: newIp(),
          headers: { 'Idempotency-Key': 'k'.repeat(300) },
          body: { email: uniqueEmail(), username: uniqueUsername(), password: `pw-${randomUUID()}` },
        });
      const [one, two] = [await signup(), await signup()];
      assert.equal(one.status, 201, one.text);
      assert.equal(two.status, 201, two.text);
      assert.notEqual(one.body.data.user.id, two.body.data.user.id);
    });

    it('documents the header and the 409 on authenticated POSTs in the OpenAPI document', async () => {
      const { body: doc } = await api('GET', '/v1/openapi.json');
      const op = doc.paths['/games'].post;
      assert.ok(op.parameters.some((p: any) => p.in === 'header' && p.name === 'Idempotency-Key' && !p.required));
      assert.match(op.responses['409'].description, /IDEMPOTENCY_KEY_REUSED/);
      const signup = doc.paths['/auth/signup'].post;
      assert.ok(!(signup.parameters ?? []).some((p: any) => p.name === 'Idempotency-Key'));
      assert.ok(!(doc.paths['/games'].get.parameters ?? []).some((p: any) => p.name === 'Idempotency-Key'));
    });
  });

  /**
   * Routes of the test's own, mounted by the real mountRoutes with the real step, the service's
   * database and its authentication: handlers whose outcome and timing the test decides.
   */
  describe('on routes whose handler the test controls', () => {
    let server: http.Server;
    let url: string;
    let user: TestUser;
    let calls: Map<string, number>;
    /** The middleware's waits for a key in progress: the system clock, its timers counted. */
    let waits = 0;
    const waitsCounted: Clock = { ...systemClock, setTimeout: (run, ms) => (waits++, systemClock.setTimeout(run, ms)) };
    let gate: { open: () => void; opened: Promise<void> };
    let outcome: (n: number) => unknown;

    const newGate = () => {
      let open!: () => void;
      const opened = new Promise<void>((resolve) => (open = resolve));
      return { open, opened };
    };
    const count = (name: string) => {
      const n = (calls.get(name) ?? 0) + 1;
      calls.set(name, n);
      return n;
    };

    before(async () => {
      const { service } = await testService();
      const log = createLogger('silent');
      const routes = [
        route({ method: 'post', path: '/scripted', summary: '', tags: [], scope: 'session', auth: 'required', hidden: true, handler: async () => outcome(count('scripted')) }),
        route({
          method: 'post',
          path: '/gated',
          summary: '',
          tags: [],
          scope: 'session',
          auth: 'required',
          hidden: true,
          handler: async () => {
            const n = count('gated');
            await gate.opened;
            return { calls: n };
          },
        }),
        route({
          method: 'post',
          path: '/key',
          summary: '',
          tags: [],
          scope: 'session',
          auth: 'required',
          hidden: true,
          handler: async ({ idempotencyKey }) => ({ key: idempotencyKey ?? null }),
        }),
      ];
      const app = createHttpApp({
        log,
        trustProxy: false,
        routes,
        deps: {
          authenticate: service.services.auth.authenticate,
          rateLimit: async () => {},
          idempotency: createIdempotency({ db: service.ctx.pool, clock: waitsCounted, log, waitMs: 1500 }),
        },
        ops: express.Router(),
      });
      server = http.createServer(app);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      user = await createUser();
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    beforeEach(() => {
      calls = new Map();
      gate = newGate();
    });

    async function post(path: string, key: string | undefined, body: unknown = {}) {
      const headers: Record<string, string> = { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' };
      if (key !== undefined) headers['idempotency-key'] = key;
      const res = await fetch(`${url}/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      const text = await res.text();
      const json = res.headers.get('content-type')?.startsWith('application/json');
      return { status: res.status, headers: res.headers, text, body: json ? JSON.parse(text) : undefined };
    }

    for (const [name, error] of [
      ['503 SERVICE_UNAVAILABLE', () => new AppError('SERVICE_UNAVAILABLE', 'try again')],
      ['500 (an unexpected error)', () => new Error('boom')],
      ['429 (try later)', () => new AppError('RATE_LIMIT_EXCEEDED', 'slow down', undefined, { retryAfter: 1 })],
    ] as const) {
      it(`does not keep a ${name} answer: the retry acts`, async () => {
        outcome = (n) => {
          if (n === 1) throw error();
          return { calls: n };
        };
        const key = randomUUID();
        const first = await post('/scripted', key);
        assert.ok(first.status >= 429, first.text);
        const retry = await post('/scripted', key);
        assert.equal(retry.status, 200, retry.text);
        assert.equal(retry.headers.get('idempotent-replayed'), null);
        assert.deepEqual(retry.body.data, { calls: 2 });
        const again = await post('/scripted', key);
        assert.equal(again.headers.get('idempotent-replayed'), 'true');
        assert.equal(again.text, retry.text);
        assert.equal(calls.get('scripted'), 2);
      });
    }

    it('replays the answer byte for byte with the headers that belong to it, and no handler runs', async () => {
      const pgn = '[Event "é"]\n\n1. e4 *\n';
      outcome = (n) => new HttpAnswer(201, `${pgn}${n}`, { 'Content-Type': 'application/x-chess-pgn; charset=utf-8', Location: '/v1/x' });
      const key = randomUUID();
      const first = await post('/scripted', key);
      const retry = await post('/scripted', key);
      assert.equal(first.status, 201);
      assert.equal(retry.status, 201);
      assert.equal(retry.text, `${pgn}1`);
      assert.equal(retry.text, first.text);
      assert.equal(retry.headers.get('content-type'), 'application/x-chess-pgn; charset=utf-8');
      assert.equal(retry.headers.get('location'), '/v1/x');
      assert.equal(retry.headers.get('content-length'), first.headers.get('content-length'));
      assert.equal(calls.get('scripted'), 1);
    });

    it('makes a request that finds its key in progress wait for the first, then replay its answer', async () => {
      const key = randomUUID();
      const first = post('/gated', key);
      await until(() => calls.get('gated') === 1);
      const waitedBefore = waits;
      const second = post('/gated', key);
      await until(() => waits > waitedBefore); // the second found the key in progress and waits
      gate.open();
      const [one, two] = await Promise.all([first, second]);
      assert.equal(one.status, 200, one.text);
      assert.equal(two.text, one.text);
      assert.equal(two.headers.get('idempotent-replayed'), 'true');
      assert.equal(calls.get('gated'), 1);
    });

    it('answers 503 with Retry-After when the first request is still running after the wait, without acting', async () => {
      const key = randomUUID();
      const first = post('/gated', key);
      await until(() => calls.get('gated') === 1);
      const second = await post('/gated', key);
      assert.equal(second.status, 503, second.text);
      assert.equal(second.body.error.code, 'SERVICE_UNAVAILABLE');
      assert.equal(second.headers.get('retry-after'), '1');
      gate.open();
      assert.equal((await first).status, 200);
      assert.equal(calls.get('gated'), 1);
    });

    it('refuses another request under a key still in progress at once', async () => {
      const key = randomUUID();
      const first = post('/gated', key, { n: 1 });
      await until(() => calls.get('gated') === 1);
      const other = await post('/gated', key, { n: 2 });
      assert.equal(other.status, 409, other.text);
      assert.equal(other.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
      gate.open();
      await first;
    });

    it('hashes the body canonically: the same fields in another order are the same request', async () => {
      outcome = (n) => ({ calls: n });
      const key = randomUUID();
      await post('/scripted', key, { a: 1, b: { c: 2, d: [3, 4] } });
      const retry = await post('/scripted', key, { b: { d: [3, 4], c: 2 }, a: 1 });
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal(calls.get('scripted'), 1);
    });

    it('hands the key to the handler', async () => {
      assert.deepEqual((await post('/key', 'my-key')).body.data, { key: 'my-key' });
      assert.deepEqual((await post('/key', undefined)).body.data, { key: null });
    });
  });

  describe('the repository, with explicit times', () => {
    let db: { pool: Pool; drop: () => Promise<void> };
    let userId: string;
    const t0 = new Date(Date.UTC(2026, 0, 1, 12));
    const at = (ms: number) => new Date(t0.getTime() + ms);
    const answer = { status: 201, headers: { 'content-type': 'application/json; charset=utf-8' }, body: Buffer.from('{"success":true}') };
    before(async () => {
      db = await isolatedDatabase();
    });
    after(() => db.drop());
    beforeEach(async () => {
      await db.pool.query('DELETE FROM idempotency_keys');
      const { rows } = await db.pool.query<{ id: string }>(
        `INSERT INTO users (email, username, password_hash) VALUES ($1, $2, 'x') RETURNING id`,
        [uniqueEmail(), uniqueUsername()],
      );
      userId = rows[0].id;
    });
    const claim = (key: string, requestHash: string, now: Date, c = randomUUID()) =>
      claimIdempotencyKey(db.pool, { userId, key, requestHash, claim: c, now });

    it('lets one claim of a key act; a second finds it in progress, then answered', async () => {
      const c = randomUUID();
      assert.equal(await claim('k', 'h1', t0, c), true);
      assert.equal(await claim('k', 'h1', at(1)), false);
      assert.deepEqual(await findIdempotencyKey(db.pool, { userId, key: 'k' }, at(1)), { requestHash: 'h1', createdAt: t0, answer: undefined });
      assert.equal(await completeIdempotencyKey(db.pool, { userId, key: 'k', claim: c }, answer), true);
      assert.deepEqual((await findIdempotencyKey(db.pool, { userId, key: 'k' }, at(2)))?.answer, answer);
    });

    it('remembers a key for 24 h: absent, and claimable with any request, from 24 h on', async () => {
      const c = randomUUID();
      await claim('k', 'h1', t0, c);
      await completeIdempotencyKey(db.pool, { userId, key: 'k', claim: c }, answer);
      const justBefore = at(IDEMPOTENCY_TTL_MS - 1);
      assert.ok(await findIdempotencyKey(db.pool, { userId, key: 'k' }, justBefore));
      assert.equal(await claim('k', 'h2', justBefore), false);
      const expiry = at(IDEMPOTENCY_TTL_MS);
      assert.equal(await findIdempotencyKey(db.pool, { userId, key: 'k' }, expiry), undefined);
      assert.equal(await claim('k', 'h2', expiry), true);
      assert.deepEqual(await findIdempotencyKey(db.pool, { userId, key: 'k' }, expiry), { requestHash: 'h2', createdAt: expiry, answer: undefined });
    });

    it('lets the same request take over a key left in progress for 60 s, and only the same request', async () => {
      const dead = randomUUID();
      await claim('k', 'h1', t0, dead);
      assert.equal(await claim('k', 'h1', at(IDEMPOTENCY_STALE_MS - 1)), false);
      assert.equal(await claim('k', 'h2', at(IDEMPOTENCY_STALE_MS)), false);
      const heir = randomUUID();
      assert.equal(await claim('k', 'h1', at(IDEMPOTENCY_STALE_MS), heir), true);
      // The attempt taken over can neither store its answer nor give the key up.
      assert.equal(await completeIdempotencyKey(db.pool, { userId, key: 'k', claim: dead }, answer), false);
      await releaseIdempotencyKey(db.pool, { userId, key: 'k', claim: dead });
      assert.equal(await completeIdempotencyKey(db.pool, { userId, key: 'k', claim: heir }, answer), true);
    });

    it('never takes over an answered key before 24 h', async () => {
      const c = randomUUID();
      await claim('k', 'h1', t0, c);
      await completeIdempotencyKey(db.pool, { userId, key: 'k', claim: c }, answer);
      assert.equal(await claim('k', 'h1', at(IDEMPOTENCY_STALE_MS * 10)), false);
    });

    it('frees a released key for the next request', async () => {
      const c = randomUUID();
      await claim('k', 'h1', t0, c);
      await releaseIdempotencyKey(db.pool, { userId, key: 'k', claim: c });
      assert.equal(await findIdempotencyKey(db.pool, { userId, key: 'k' }, at(1)), undefined);
      assert.equal(await claim('k', 'h1', at(1)), true);
    });

    it('deletes keys 24 h old in bulk (the sweeper), and no younger ones', async () => {
      const sweepAt = at(IDEMPOTENCY_TTL_MS + 10_000);
      await claim('old', 'h', t0);
      await claim('edge', 'h', at(10_000));
      await claim('young', 'h', at(10_001));
      assert.equal(await deleteExpiredIdempotencyKeys(db.pool, sweepAt), 2);
      const { rows } = await db.pool.query('SELECT key FROM idempotency_keys WHERE user_id = $1', [userId]);
      assert.deepEqual(rows.map((r) => r.key), ['young']);
      assert.equal(await deleteExpiredIdempotencyKeys(db.pool, sweepAt), 0);
    });
  });
});

async function until(done: () => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
