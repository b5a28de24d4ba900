import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const me = (token: string) => api('GET', '/v1/users/me', { token });
const refresh = (refresh_token: string) => api('POST', '/v1/auth/refresh', { body: { refresh_token }, ip: newIp() });
const logout = (token: string) => api('POST', '/v1/auth/logout', { token, ip: newIp() });

function expectUnauthorized(res: ApiResponse) {
  assert.equal(res.status, 401, res.text);
  assert.equal(res.body.error.code, 'UNAUTHORIZED');
  assert.equal(res.headers.get('www-authenticate'), 'Bearer');
}

/** Signs claims as the service would, with overrides; `key` defaults to the service's secret. */
async function forge(user: TestUser, o: { claims?: object; key?: string; options?: jwt.SignOptions } = {}) {
  const { config } = await testService();
  const { sid } = jwt.decode(user.accessToken) as { sid: string };
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: user.id, email: user.email, role: 'authenticated', sid, iat: now, exp: now + 3600, ...o.claims };
  return jwt.sign(claims, o.key ?? config.jwtSecret, { audience: 'chess-service', issuer: config.publicUrl, ...o.options });
}

describe('access tokens', () => {
  it('carry sub, email, role, iat, exp = iat + 3600, sid, aud and iss', async () => {
    const user = await createUser();
    const header = JSON.parse(Buffer.from(user.accessToken.split('.')[0], 'base64url').toString());
    assert.equal(header.alg, 'HS256');
    const claims = jwt.decode(user.accessToken) as Record<string, unknown>;
    assert.equal(claims.sub, user.id);
    assert.equal(claims.email, user.email);
    assert.equal(claims.role, 'authenticated');
    assert.equal((claims.exp as number) - (claims.iat as number), 3600);
    assert.match(claims.sid as string, /^[0-9a-f-]{36}$/);
    assert.equal(claims.aud, 'chess-service');
    assert.equal(claims.iss, 'http://chess.test');
  });

  it('are accepted when forged exactly like the service signs them (the forger is sound)', async () => {
    const user = await createUser();
    assert.equal((await me(await forge(user))).status, 200);
  });

  it('answer 401 UNAUTHORIZED with WWW-Authenticate when missing or garbage', async () => {
    expectUnauthorized(await api('GET', '/v1/users/me'));
    expectUnauthorized(await me('not.a.jwt'));
    expectUnauthorized(await api('GET', '/v1/users/me', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }));
  });

  it('answer 401 once expired', async () => {
    const user = await createUser();
    const past = Math.floor(Date.now() / 1000) - 7200;
    expectUnauthorized(await me(await forge(user, { claims: { iat: past, exp: past + 3600 } })));
  });

  it('answer 401 when signed with another secret', async () => {
    const user = await createUser();
    expectUnauthorized(await me(await forge(user, { key: 'another-secret-that-is-long-enough-1234' })));
  });

  it('answer 401 with alg none', async () => {
    const user = await createUser();
    const [, payload] = user.accessToken.split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expectUnauthorized(await me(`${header}.${payload}.`));
  });

  it('answer 401 with another algorithm, even with the right secret', async () => {
    const user = await createUser();
    expectUnauthorized(await me(await forge(user, { options: { algorithm: 'HS512' } })));
  });

  it('answer 401 for another audience or issuer', async () => {
    const user = await createUser();
    expectUnauthorized(await me(await forge(user, { options: { audience: 'someone-else' } })));
    expectUnauthorized(await me(await forge(user, { options: { issuer: 'http://evil.test' } })));
  });

  it('answer 401 for a session that does not exist or belongs to someone else', async () => {
    const [user, other] = await Promise.all([createUser(), createUser()]);
    expectUnauthorized(await me(await forge(user, { claims: { sid: randomUUID() } })));
    const { sid } = jwt.decode(other.accessToken) as { sid: string };
    expectUnauthorized(await me(await forge(user, { claims: { sid } })));
  });
});

describe('POST /auth/refresh', () => {
  it('rotates: answers a new pair, and the new refresh token works in turn', async () => {
    const user = await createUser();
    const first = await refresh(user.refreshToken);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(Object.keys(first.body.data).sort(), ['access_token', 'expires_in', 'refresh_token']);
    assert.equal(first.body.data.expires_in, 3600);
    assert.notEqual(first.body.data.refresh_token, user.refreshToken);
    assert.equal((await me(first.body.data.access_token)).status, 200);
    const second = await refresh(first.body.data.refresh_token);
    assert.equal(second.status, 200, second.text);
    // The session lives on: the access token issued before the refresh still works until exp.
    assert.equal((await me(user.accessToken)).status, 200);
  });

  it('keeps the session of the pair it replaces', async () => {
    const user = await createUser();
    const res = await refresh(user.refreshToken);
    const sid = (token: string) => (jwt.decode(token) as { sid: string }).sid;
    assert.equal(sid(res.body.data.access_token), sid(user.accessToken));
  });

  it('treats a used refresh token as stolen: 401, and the whole session ends', async () => {
    const user = await createUser();
    const rotated = await refresh(user.refreshToken);
    assert.equal(rotated.status, 200);
    expectUnauthorized(await refresh(user.refreshToken));
    expectUnauthorized(await me(user.accessToken));
    expectUnauthorized(await me(rotated.body.data.access_token));
    expectUnauthorized(await refresh(rotated.body.data.refresh_token));
  });

  it('lets exactly one of two simultaneous refreshes with the same token succeed', async () => {
    const user = await createUser();
    const answers = await Promise.all([refresh(user.refreshToken), refresh(user.refreshToken)]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 401]);
  });

  it('stores refresh tokens only as SHA-256 digests, valid for 30 days', async () => {
    const user = await createUser();
    const { db } = await testService();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const digest = createHash('sha256').update(user.refreshToken).digest('hex');
      const { rows } = await client.query(
        `SELECT token_hash, extract(epoch FROM expires_at - issued_at)::int AS lifetime FROM refresh_tokens
         WHERE token_hash IN ($1, $2)`,
        [user.refreshToken, digest],
      );
      assert.deepEqual(rows, [{ token_hash: digest, lifetime: 30 * 24 * 3600 }]);
    } finally {
      await client.end();
    }
  });

  it('answers 401 for an unknown refresh token', async () => {
    expectUnauthorized(await refresh('definitely-not-a-token'));
  });

  it('answers 401 for an expired refresh token', async () => {
    const user = await createUser();
    const { db } = await testService();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      // 30 days have passed: make this user's refresh tokens expire.
      await client.query(
        `UPDATE refresh_tokens SET expires_at = now() - interval '1 second'
         WHERE session_id IN (SELECT id FROM sessions WHERE user_id = $1)`,
        [user.id],
      );
    } finally {
      await client.end();
    }
    expectUnauthorized(await refresh(user.refreshToken));
  });

  describe('absolute session lifetime (SESSION_MAX_DAYS, 90 by default)', () => {
    /** Moves the login of the user's sessions `days` into the past, as that much time would. */
    async function ageSessions(user: TestUser, days: number) {
      const { service } = await testService();
      await service.ctx.pool.query(`UPDATE sessions SET created_at = now() - make_interval(secs => $2::double precision * 86400) WHERE user_id = $1`, [user.id, days]);
    }

    it('keeps a session refreshed for 89 days alive: rotation works and its access tokens pass', async () => {
      const user = await createUser();
      await ageSessions(user, 89);
      const res = await refresh(user.refreshToken);
      assert.equal(res.status, 200, res.text);
      assert.equal((await me(res.body.data.access_token)).status, 200);
    });

    it('ends a session 90 days after its login, however often it was refreshed: refresh and access tokens fail', async () => {
      const user = await createUser();
      const rotated = await refresh(user.refreshToken);
      assert.equal(rotated.status, 200, rotated.text);
      await ageSessions(user, 90.01);
      expectUnauthorized(await refresh(rotated.body.data.refresh_token));
      expectUnauthorized(await me(rotated.body.data.access_token));
      const { config } = await testService();
      assert.equal(config.sessionMaxMs, 90 * 24 * 3600 * 1000);
    });
  });

  it('answers 400 VALIDATION_ERROR without a refresh_token', async () => {
    const res = await api('POST', '/v1/auth/refresh', { body: {}, ip: newIp() });
    assert.equal(res.status, 400);
    assert.deepEqual(Object.keys(res.body.error.details), ['refresh_token']);
  });
});

describe('POST /auth/logout', () => {
  it('answers 204 and ends the session: its access and refresh tokens fail afterwards', async () => {
    const user = await createUser();
    const res = await logout(user.accessToken);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    expectUnauthorized(await me(user.accessToken));
    expectUnauthorized(await logout(user.accessToken));
    expectUnauthorized(await refresh(user.refreshToken));
  });

  it('answers 401 without a token', async () => {
    expectUnauthorized(await api('POST', '/v1/auth/logout', { ip: newIp() }));
  });
});
