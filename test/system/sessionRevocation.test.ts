import assert from 'node:assert/strict';
import pg from 'pg';
import { hashToken, randomToken } from '../../src/auth/tokens.ts';
import { createDatabase } from '../support/database.ts';
import { clusterRedisUrl } from '../helpers/cluster.ts';
import { requestJson, startServiceProcess, type ServiceProcess } from '../support/process.ts';
import { NdjsonClient } from '../helpers/ndjson.ts';
import { testService } from '../helpers/service.ts';
import { WsClient } from '../helpers/ws.ts';

/**
 * Each node caches the sessions of the tokens it has checked (SESSION_CACHE_SECONDS), yet
 * logout, refresh-token reuse and a password change end a session on every node at once
 * (DESIGN 2.2, 2.8). Two real processes on one PostgreSQL and one Redis, with a cache lifetime
 * far longer than the test: only the revocation reaching the other node can refuse its token.
 * Needs REDIS_URL (CI sets it).
 */
describe('Session revocation across two nodes (REDIS_URL)', function () {
  this.timeout(60_000);
  let nodes: ServiceProcess[] = [];
  let db: { url: string; drop: () => Promise<void> };
  let sql: pg.Pool;

  before(async function () {
    const redisUrl = await clusterRedisUrl();
    if (!redisUrl) {
      console.warn('    SKIPPED: REDIS_URL is not set, so the two-node revocation tests did not run');
      return this.skip();
    }
    const { db: harness } = await testService();
    db = await createDatabase(harness.serverUrl);
    sql = new pg.Pool({ connectionString: db.url, max: 2 });
    const env = {
      REDIS_URL: redisUrl,
      SESSION_CACHE_SECONDS: '300',
      JWT_SECRET: 'revocation-test-secret-'.padEnd(48, 'x'),
      PUBLIC_URL: 'http://chess.revocation.test',
    };
    nodes = [await startServiceProcess(db.url, { env })];
    nodes.push(await startServiceProcess(db.url, { env }));
  });

  after(async () => {
    for (const n of nodes) if (n.child.exitCode === null) n.child.kill('SIGTERM');
    await Promise.all(nodes.map((n) => n.exited));
    await sql?.end();
    await db?.drop();
  });

  const call = (node: ServiceProcess, method: string, path: string, body?: unknown, token?: string) =>
    requestJson(`${node.base}/v1`, method, path, body, token);
  let n = 0;
  /** A user signed up on node A whose access token node B has checked (and so cached). */
  async function userSeenByB() {
    const [a, b] = nodes;
    const name = `rv${Date.now().toString(36)}${n++}`;
    const signup = await call(a, 'POST', '/auth/signup', { email: `${name}@example.com`, password: 'revoke-test-1', username: name });
    assert.equal(signup.status, 201, JSON.stringify(signup.body));
    const user = { id: signup.body.data.user.id as string, access: signup.body.data.session.access_token as string, refresh: signup.body.data.session.refresh_token as string };
    for (const node of [b, b, a]) assert.equal((await call(node, 'GET', '/users/me', undefined, user.access)).status, 200);
    return user;
  }
  const expect401 = (res: { status: number; body: any; headers: Headers }) => {
    assert.equal(res.status, 401, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'UNAUTHORIZED');
    assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
  };

  it('answers a checked token from its cache: a revocation written behind the service’s back is not seen', async () => {
    // The proof that node B does not read the session each time (what the cache is for); the
    // service's own revocations are published, as the next tests show.
    const [, b] = nodes;
    const user = await userSeenByB();
    await sql.query(`UPDATE sessions SET revoked_at = now(), revoked_reason = 'logout' WHERE user_id = $1`, [user.id]);
    assert.equal((await call(b, 'GET', '/users/me', undefined, user.access)).status, 200);
  });

  it('refuses a token on node B as soon as node A has answered its logout', async () => {
    const [a, b] = nodes;
    const user = await userSeenByB();
    assert.equal((await call(a, 'POST', '/auth/logout', undefined, user.access)).status, 204);
    expect401(await call(b, 'GET', '/users/me', undefined, user.access));
    expect401(await call(a, 'GET', '/users/me', undefined, user.access));
  });

  it('refuses every token of a session on node B once node A saw its refresh token reused', async () => {
    const [a, b] = nodes;
    const user = await userSeenByB();
    const rotated = await call(a, 'POST', '/auth/refresh', { refresh_token: user.refresh });
    assert.equal(rotated.status, 200);
    const newAccess = rotated.body.data.access_token as string;
    assert.equal((await call(b, 'GET', '/users/me', undefined, newAccess)).status, 200);
    expect401(await call(a, 'POST', '/auth/refresh', { refresh_token: user.refresh }));
    expect401(await call(b, 'GET', '/users/me', undefined, user.access));
    expect401(await call(b, 'GET', '/users/me', undefined, newAccess));
  });

  it('refuses all of a user’s sessions on node B once node A has changed the password', async () => {
    const [a, b] = nodes;
    const user = await userSeenByB();
    // A second login (another device), also checked by B.
    const login = await call(a, 'POST', '/auth/login', { email: `${await usernameOf(user.id)}@example.com`, password: 'revoke-test-1' });
    assert.equal(login.status, 200);
    const second = login.body.data.session.access_token as string;
    assert.equal((await call(b, 'GET', '/users/me', undefined, second)).status, 200);
    // The reset link's token, as the mail would carry it.
    const token = randomToken();
    await sql.query(
      `INSERT INTO user_tokens (token_hash, user_id, purpose, expires_at) VALUES ($1, $2, 'reset', now() + interval '1 hour')`,
      [hashToken(token), user.id],
    );
    assert.equal((await call(a, 'POST', '/auth/password/update', { token, password: 'brand-new-pass-2' })).status, 200);
    expect401(await call(b, 'GET', '/users/me', undefined, user.access));
    expect401(await call(b, 'GET', '/users/me', undefined, second));
  });

  /** A personal access token of `user`, made on node A and checked (so cached) by node B. */
  async function personalTokenSeenByB(user: { access: string }): Promise<{ id: string; token: string }> {
    const [a, b] = nodes;
    const made = await call(a, 'POST', '/account/tokens', { description: 'bot', scopes: ['account:read'] }, user.access);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    for (const node of [b, b, a]) assert.equal((await call(node, 'GET', '/users/me', undefined, made.body.data.token)).status, 200);
    return { id: made.body.data.id, token: made.body.data.token };
  }

  it('answers a checked personal token from its cache too', async () => {
    const [, b] = nodes;
    const pat = await personalTokenSeenByB(await userSeenByB());
    await sql.query('DELETE FROM personal_tokens WHERE id = $1', [pat.id]);
    assert.equal((await call(b, 'GET', '/users/me', undefined, pat.token)).status, 200);
  });

  it('refuses a personal token on node B as soon as node A has answered its deletion (DESIGN 2.12)', async () => {
    const [a, b] = nodes;
    const user = await userSeenByB();
    const pat = await personalTokenSeenByB(user);
    const kept = await personalTokenSeenByB(user);
    assert.equal((await call(a, 'DELETE', `/account/tokens/${pat.id}`, undefined, user.access)).status, 204);
    expect401(await call(b, 'GET', '/users/me', undefined, pat.token));
    assert.equal((await call(b, 'GET', '/users/me', undefined, kept.token)).status, 200, 'the other token goes on');
  });

  it('refuses every personal token on node B once node A has reset the password', async () => {
    const [a, b] = nodes;
    const user = await userSeenByB();
    const pat = await personalTokenSeenByB(user);
    const token = randomToken();
    await sql.query(
      `INSERT INTO user_tokens (token_hash, user_id, purpose, expires_at) VALUES ($1, $2, 'reset', now() + interval '1 hour')`,
      [hashToken(token), user.id],
    );
    assert.equal((await call(a, 'POST', '/auth/password/update', { token, password: 'brand-new-pass-2' })).status, 200);
    expect401(await call(b, 'GET', '/users/me', undefined, pat.token));
  });

  // DESIGN 2.12: a socket lives no longer than its credential, whichever node holds it.
  it("closes node B's game stream opened with a personal token as soon as node A has deleted the token", async () => {
    const [a, b] = nodes;
    const [white, black] = [await userSeenByB(), await userSeenByB()];
    const game = await call(a, 'POST', '/games', { type: 'challenge', opponent_id: black.id, time_control: 'blitz', initial_time: 300, increment: 0, color: 'white' }, white.access);
    assert.equal(game.status, 201, JSON.stringify(game.body));
    const made = await call(a, 'POST', '/account/tokens', { description: 'bot', scopes: ['games:read'] }, white.access);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const pat = { id: made.body.data.id as string, token: made.body.data.token as string };
    // A pending game shows to its players (a personal token with games:read): the stream starts with its state.
    const stream = await WsClient.open(`${b.base.replace('http', 'ws')}/v1/games/${game.body.data.id}/stream?token=${pat.token}`);
    assert.equal((await stream.next('state')).game.status, 'pending');
    assert.equal((await call(a, 'DELETE', `/account/tokens/${pat.id}`, undefined, white.access)).status, 204);
    assert.equal((await stream.until('error')).code, 'UNAUTHORIZED');
    assert.equal((await stream.closed).code, 4401);
  });

  it("ends node B's NDJSON game stream of a session as soon as node A has changed the password from another session", async () => {
    const [a, b] = nodes;
    const [white, black] = [await userSeenByB(), await userSeenByB()];
    const game = await call(a, 'POST', '/games', { type: 'challenge', opponent_id: black.id, time_control: 'blitz', initial_time: 300, increment: 0, color: 'white' }, white.access);
    assert.equal(game.status, 201, JSON.stringify(game.body));
    const login = await call(a, 'POST', '/auth/login', { email: `${await usernameOf(white.id)}@example.com`, password: 'revoke-test-1' });
    assert.equal(login.status, 200);
    const stream = await NdjsonClient.open(`${b.base}/v1/games/${game.body.data.id}/stream`, { authorization: `Bearer ${login.body.data.session.access_token}` });
    assert.equal((await stream.next('state')).game.status, 'pending');
    const changed = await call(a, 'POST', '/users/me/password', { current_password: 'revoke-test-1', new_password: 'brand-new-pass-3' }, white.access);
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal((await stream.next('error')).code, 'UNAUTHORIZED');
    assert.equal(await stream.ended, 'complete');
  });

  async function usernameOf(id: string): Promise<string> {
    return (await sql.query('SELECT username FROM users WHERE id = $1', [id])).rows[0].username;
  }
});
