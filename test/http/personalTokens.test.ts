// DESIGN 2.12: personal access tokens for scripts and bots — made by a signed-in person, shown
// once, stored hashed, limited to scopes, ended by deletion, expiry or a new password.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { MailCatcher, type ReceivedMail } from '../helpers/smtp.ts';
import { createUser, login, type TestUser } from '../helpers/users.ts';

const TOKEN_SHAPE = /^cst_[0-9A-Za-z]{43}$/;

async function sql<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
  const { db } = await testService();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

function makeToken(user: TestUser, body: Record<string, unknown>): Promise<ApiResponse> {
  return api('POST', '/v1/account/tokens', { token: user.accessToken, ip: user.ip, body });
}

/** A new token of `user` with these scopes, in clear. */
async function tokenOf(user: TestUser, scopes: string[], extra: Record<string, unknown> = {}): Promise<string> {
  const res = await makeToken(user, { description: 'a bot', scopes, ...extra });
  assert.equal(res.status, 201, res.text);
  return res.body.data.token;
}

const listTokens = (user: TestUser) => api('GET', '/v1/account/tokens?limit=100', { token: user.accessToken, ip: user.ip });
const me = (token: string) => api('GET', '/v1/users/me', { token, ip: newIp() });

function expectError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, code);
}

describe('personal access tokens (DESIGN 2.12)', () => {
  afterEach(async () => (await testService()).clock.reset());

  describe('POST /account/tokens', () => {
    it('makes a cst_ token of 43 base62 characters, with the fields DESIGN 2.12 lists', async () => {
      const user = await createUser();
      const res = await makeToken(user, { description: 'my bot', scopes: ['games:play', 'games:read'] });
      assert.equal(res.status, 201, res.text);
      const t = res.body.data;
      assert.deepEqual(Object.keys(t), ['id', 'token', 'description', 'scopes', 'created_at', 'expires_at', 'last_used_at']);
      assert.match(t.token, TOKEN_SHAPE);
      assert.equal(t.description, 'my bot');
      assert.deepEqual(t.scopes, ['games:read', 'games:play']);
      assert.equal(t.expires_at, null);
      assert.equal(t.last_used_at, null);
      assert.ok(Math.abs(Date.parse(t.created_at) - Date.now()) < 60_000);
    });

    it('shows the token only in that answer: the list leaves it out, and only its SHA-256 is stored', async () => {
      const user = await createUser();
      const token = await tokenOf(user, ['account:read']);
      const list = await listTokens(user);
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.data.length, 1);
      assert.equal(list.body.data[0].token, undefined);
      assert.ok(!list.text.includes(token.slice(4)));
      const rows = await sql('SELECT * FROM personal_tokens WHERE user_id = $1', [user.id]);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].token_hash, createHash('sha256').update(token).digest('hex'));
      assert.ok(!JSON.stringify(rows).includes(token.slice(4)), 'the token in clear is nowhere in the row');
    });

    it('makes a different token each time', async () => {
      const user = await createUser();
      const [a, b] = [await tokenOf(user, ['games:read']), await tokenOf(user, ['games:read'])];
      assert.notEqual(a, b);
    });

    it('refuses a bad description, scope list or expiry with VALIDATION_ERROR naming the field, storing nothing', async () => {
      const user = await createUser();
      const cases: [Record<string, unknown>, string][] = [
        [{ scopes: ['games:read'] }, 'description'],
        [{ description: '   ', scopes: ['games:read'] }, 'description'],
        [{ description: 'x'.repeat(101), scopes: ['games:read'] }, 'description'],
        [{ description: 'bell\u0007', scopes: ['games:read'] }, 'description'],
        [{ description: 'bot' }, 'scopes'],
        [{ description: 'bot', scopes: [] }, 'scopes'],
        [{ description: 'bot', scopes: ['games:admin'] }, 'scopes'],
        [{ description: 'bot', scopes: 'games:read' }, 'scopes'],
        [{ description: 'bot', scopes: ['games:read'], expires_at: 'tomorrow' }, 'expires_at'],
        [{ description: 'bot', scopes: ['games:read'], expires_at: new Date(Date.now() - 60_000).toISOString() }, 'expires_at'],
      ];
      for (const [body, field] of cases) {
        const res = await makeToken(user, body);
        expectError(res, 400, 'VALIDATION_ERROR');
        assert.ok(Object.keys(res.body.error.details).some((k) => k === field || k.startsWith(`${field}.`)), `${JSON.stringify(body)}: ${res.text}`);
      }
      assert.equal((await sql('SELECT 1 FROM personal_tokens WHERE user_id = $1', [user.id])).length, 0);
    });

    it('allows at most 50 tokens per user: the 51st is 409 TOKEN_LIMIT', async () => {
      const user = await createUser();
      // 49 stored directly (the write class allows 30 requests a minute), the 50th through the API.
      await sql(
        `INSERT INTO personal_tokens (user_id, token_hash, description, scopes)
         SELECT $1, md5(random()::text || i), 'filler', '{games:read}' FROM generate_series(1, 49) i`,
        [user.id],
      );
      assert.equal((await makeToken(user, { description: 'fiftieth', scopes: ['games:read'] })).status, 201);
      expectError(await makeToken(user, { description: 'one too many', scopes: ['games:read'] }), 409, 'TOKEN_LIMIT');
      assert.equal((await sql('SELECT 1 FROM personal_tokens WHERE user_id = $1', [user.id])).length, 50);
    });

    it('needs the token of a session: a personal token cannot make, list or delete tokens (403 SESSION_REQUIRED)', async () => {
      const user = await createUser();
      const token = await tokenOf(user, ['account:read', 'games:read', 'games:play', 'social:write', 'webhooks:write']);
      const id = (await listTokens(user)).body.data[0].id;
      expectError(await api('POST', '/v1/account/tokens', { token, ip: newIp(), body: { description: 'x', scopes: ['games:read'] } }), 403, 'SESSION_REQUIRED');
      expectError(await api('GET', '/v1/account/tokens', { token, ip: newIp() }), 403, 'SESSION_REQUIRED');
      expectError(await api('DELETE', `/v1/account/tokens/${id}`, { token, ip: newIp() }), 403, 'SESSION_REQUIRED');
      assert.equal((await listTokens(user)).body.data.length, 1);
    });

    it('needs a token at all (401)', async () => {
      expectError(await api('POST', '/v1/account/tokens', { body: { description: 'x', scopes: ['games:read'] } }), 401, 'UNAUTHORIZED');
    });
  });

  describe('using a token', () => {
    it('works as a Bearer token within its scopes', async () => {
      const user = await createUser();
      const token = await tokenOf(user, ['account:read']);
      const res = await me(token);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.id, user.id);
    });

    it('answers a call outside its scopes with 403 MISSING_SCOPE naming the scope in details.scope', async () => {
      const user = await createUser();
      const friend = await createUser();
      const token = await tokenOf(user, ['account:read']);
      const games = await api('GET', '/v1/games', { token, ip: newIp() });
      expectError(games, 403, 'MISSING_SCOPE');
      assert.deepEqual(games.body.error.details, { scope: ['games:read'] });
      const befriend = await api('POST', `/v1/friends/${friend.id}`, { token, ip: newIp() });
      expectError(befriend, 403, 'MISSING_SCOPE');
      assert.deepEqual(befriend.body.error.details, { scope: ['social:write'] });
      const requests = await api('GET', '/v1/friends?status=pending', { token: friend.accessToken, ip: friend.ip });
      assert.equal(requests.body.data?.length ?? 0, 0, 'the refused call changed nothing');
    });

    it('reads public data with no scope needed', async () => {
      const user = await createUser();
      const other = await createUser();
      const token = await tokenOf(user, ['puzzles:write']);
      const profile = await api('GET', `/v1/users/${other.id}`, { token, ip: newIp() });
      assert.equal(profile.status, 200, profile.text);
      assert.equal(profile.body.data.username, other.username);
      assert.equal((await api('GET', '/v1/tournaments', { token, ip: newIp() })).status, 200);
    });

    it('cannot change the password or the email (403 SESSION_REQUIRED), which stay as they were', async () => {
      const user = await createUser();
      const token = await tokenOf(user, [...['games:read', 'games:play', 'social:write', 'puzzles:write'], ...['tournaments:write', 'webhooks:write', 'account:read']]);
      const password = await api('POST', '/v1/users/me/password', { token, ip: newIp(), body: { current_password: user.password, new_password: 'taken-over-pass-9' } });
      expectError(password, 403, 'SESSION_REQUIRED');
      const email = await api('POST', '/v1/users/me/email', { token, ip: newIp(), body: { password: user.password, email: 'thief@example.com' } });
      expectError(email, 403, 'SESSION_REQUIRED');
      assert.equal((await login(user)).status, 200, 'the password is unchanged');
      assert.equal((await me(user.accessToken)).body.data.email, user.email);
    });

    it('refuses a token that is unknown or malformed (401 UNAUTHORIZED)', async () => {
      expectError(await me(`cst_${'0'.repeat(43)}`), 401, 'UNAUTHORIZED');
      expectError(await me('cst_'), 401, 'UNAUTHORIZED');
    });

    it('keeps last_used_at to the minute, writing it at most once a minute', async () => {
      const { clock } = await testService();
      // 20 s into a minute: the next uses fall in the same minute.
      clock.skip(60_000 - ((Date.now() + 0) % 60_000) + 20_000);
      const user = await createUser();
      const token = await tokenOf(user, ['account:read']);
      assert.equal((await me(token)).status, 200);
      const minute = Math.floor(clock.now() / 60_000) * 60_000;
      const [first] = (await listTokens(user)).body.data;
      assert.equal(first.last_used_at, new Date(minute).toISOString());
      // Forgotten in the database: a use in the same minute does not write it again.
      await sql('UPDATE personal_tokens SET last_used_at = NULL WHERE user_id = $1', [user.id]);
      assert.equal((await me(token)).status, 200);
      assert.equal((await listTokens(user)).body.data[0].last_used_at, null);
      // The next minute it does.
      clock.skip(60_000);
      assert.equal((await me(token)).status, 200);
      assert.equal((await listTokens(user)).body.data[0].last_used_at, new Date(minute + 60_000).toISOString());
    });
  });

  describe('ending a token', () => {
    it('DELETE /account/tokens/{id} ends it at once (204); again, or someone else\u2019s, is 404 TOKEN_NOT_FOUND', async () => {
      const user = await createUser();
      const other = await createUser();
      const token = await tokenOf(user, ['account:read']);
      const id = (await listTokens(user)).body.data[0].id;
      assert.equal((await me(token)).status, 200, 'used once: it is cached now');
      expectError(await api('DELETE', `/v1/account/tokens/${id}`, { token: other.accessToken, ip: other.ip }), 404, 'TOKEN_NOT_FOUND');
      assert.equal((await me(token)).status, 200, 'another user cannot delete it');
      const res = await api('DELETE', `/v1/account/tokens/${id}`, { token: user.accessToken, ip: user.ip });
      assert.equal(res.status, 204, res.text);
      expectError(await me(token), 401, 'UNAUTHORIZED');
      expectError(await api('DELETE', `/v1/account/tokens/${id}`, { token: user.accessToken, ip: user.ip }), 404, 'TOKEN_NOT_FOUND');
      expectError(await api('DELETE', '/v1/account/tokens/not-an-id', { token: user.accessToken, ip: user.ip }), 404, 'TOKEN_NOT_FOUND');
    });

    it('stops working at expires_at', async () => {
      const { clock } = await testService();
      const user = await createUser();
      const expiresAt = new Date(clock.now() + 120_000).toISOString();
      const created = await makeToken(user, { description: 'short-lived', scopes: ['account:read'], expires_at: expiresAt });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.expires_at, expiresAt);
      assert.equal((await me(created.body.data.token)).status, 200);
      clock.skip(121_000);
      expectError(await me(created.body.data.token), 401, 'UNAUTHORIZED');
    });

    it('survives a logout of the session that made it', async () => {
      const user = await createUser();
      const token = await tokenOf(user, ['account:read']);
      assert.equal((await api('POST', '/v1/auth/logout', { token: user.accessToken, ip: user.ip })).status, 204);
      assert.equal((await me(user.accessToken)).status, 401);
      assert.equal((await me(token)).status, 200);
    });

    it('cannot log out (403 SESSION_REQUIRED): it has no session to end', async () => {
      const user = await createUser();
      const token = await tokenOf(user, ['account:read']);
      expectError(await api('POST', '/v1/auth/logout', { token, ip: newIp() }), 403, 'SESSION_REQUIRED');
      assert.equal((await me(token)).status, 200);
    });

    it('ends, every one of them, when the password is reset through the mail link', async () => {
      const { mail } = await testService();
      const user = await createUser();
      const tokens = [await tokenOf(user, ['account:read']), await tokenOf(user, ['games:read', 'account:read'])];
      for (const t of tokens) assert.equal((await me(t)).status, 200);
      assert.equal((await api('POST', '/v1/auth/password/reset', { body: { email: user.email }, ip: newIp() })).status, 200);
      const isReset = (m: ReceivedMail) => m.raw.includes('/reset-password?token=');
      const resetToken = MailCatcher.tokenOf(await mail.waitFor(user.email, isReset));
      const updated = await api('POST', '/v1/auth/password/update', { body: { token: resetToken, password: 'brand-new-pass-2' }, ip: newIp() });
      assert.equal(updated.status, 200, updated.text);
      for (const t of tokens) expectError(await me(t), 401, 'UNAUTHORIZED');
      const fresh = await login({ email: user.email, password: 'brand-new-pass-2' });
      const list = await api('GET', '/v1/account/tokens', { token: fresh.body.data.session.access_token, ip: newIp() });
      assert.deepEqual(list.body.data, []);
    });

    it('ends when the password is changed with POST /users/me/password; the asking session goes on', async () => {
      const user = await createUser();
      const token = await tokenOf(user, ['account:read']);
      assert.equal((await me(token)).status, 200);
      const res = await api('POST', '/v1/users/me/password', { token: user.accessToken, ip: newIp(), body: { current_password: user.password, new_password: 'a-new-secret-9' } });
      assert.equal(res.status, 200, res.text);
      expectError(await me(token), 401, 'UNAUTHORIZED');
      assert.equal((await me(user.accessToken)).status, 200);
    });
  });
});
