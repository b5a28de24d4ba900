import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { MailCatcher, type ReceivedMail } from '../helpers/smtp.ts';
import { createUser, login, uniqueEmail, type TestUser } from '../helpers/users.ts';

const post = (path: string, body: unknown) => api('POST', `/v1${path}`, { body, ip: newIp() });
const isReset = (m: ReceivedMail) => m.raw.includes('/reset-password?token=');
const isVerify = (m: ReceivedMail) => m.raw.includes('/verify-email?token=');

/** Asks for a reset link and returns its token (one not in `earlier`: the mail this request caused). */
async function resetToken(user: TestUser, earlier: string[] = []): Promise<string> {
  const { mail } = await testService();
  const res = await post('/auth/password/reset', { email: user.email });
  assert.equal(res.status, 200, res.text);
  return MailCatcher.tokenOf(await mail.waitFor(user.email, (m) => isReset(m) && !earlier.includes(MailCatcher.tokenOf(m))));
}

async function verifyToken(user: TestUser, except?: string): Promise<string> {
  const { mail } = await testService();
  return MailCatcher.tokenOf(await mail.waitFor(user.email, (m) => isVerify(m) && MailCatcher.tokenOf(m) !== except));
}

/** Runs SQL on the service's database (to look at stored tokens, or age them as time would). */
async function sql(text: string, params: unknown[]) {
  const { db } = await testService();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** Lifetime in seconds of the stored tokens of a user for one purpose. */
const lifetimes = async (userId: string, purpose: string) =>
  (
    await sql(`SELECT extract(epoch FROM expires_at - created_at)::int AS s FROM user_tokens WHERE user_id = $1 AND purpose = $2`, [
      userId,
      purpose,
    ])
  ).map((r) => r.s);

function expectInvalidToken(res: ApiResponse) {
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.error.code, 'INVALID_TOKEN');
}

describe('password reset', () => {
  it('answers 200 {success, message} and mails a reset link under PUBLIC_URL', async () => {
    const user = await createUser();
    const res = await post('/auth/password/reset', { email: user.email.toUpperCase() });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['message', 'success']);
    assert.equal(res.body.success, true);
    const { mail } = await testService();
    const received = await mail.waitFor(user.email, isReset);
    assert.match(received.raw, /http:\/\/chess\.test\/reset-password\?token=[A-Za-z0-9_-]{43}/);
  });

  it('answers an unknown email exactly like a known one', async () => {
    const user = await createUser();
    const known = await post('/auth/password/reset', { email: user.email });
    const unknown = await post('/auth/password/reset', { email: uniqueEmail('nobody') });
    assert.equal(unknown.status, known.status);
    assert.deepEqual(unknown.body, known.body);
  });

  it('sets the new password, ends every session, and lets the new password log in', async () => {
    const user = await createUser();
    const other = (await login(user)).body.data.session;
    const token = await resetToken(user);
    const res = await post('/auth/password/update', { token, password: 'brand-new-pass-2' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['message', 'success']);
    for (const access of [user.accessToken, other.access_token]) {
      assert.equal((await api('GET', '/v1/users/me', { token: access })).status, 401);
    }
    assert.equal((await post('/auth/refresh', { refresh_token: user.refreshToken })).status, 401);
    assert.equal((await login(user)).status, 401);
    assert.equal((await login({ email: user.email, password: 'brand-new-pass-2' })).status, 200);
  });

  it('works once per token', async () => {
    const user = await createUser();
    const token = await resetToken(user);
    assert.equal((await post('/auth/password/update', { token, password: 'first-change-1' })).status, 200);
    expectInvalidToken(await post('/auth/password/update', { token, password: 'second-change-2' }));
    assert.equal((await login({ email: user.email, password: 'first-change-1' })).status, 200);
  });

  it('stores the token only as a SHA-256 digest, valid for one hour', async () => {
    const user = await createUser();
    const token = await resetToken(user);
    assert.deepEqual(await lifetimes(user.id, 'reset'), [3600]);
    assert.equal((await sql('SELECT 1 FROM user_tokens WHERE token_hash = $1', [token])).length, 0);
    const digest = createHash('sha256').update(token).digest('hex');
    assert.equal((await sql('SELECT 1 FROM user_tokens WHERE token_hash = $1', [digest])).length, 1);
  });

  it('lets only the newest link work: asking for another one ends the older', async () => {
    const user = await createUser();
    const older = await resetToken(user);
    const newer = await resetToken(user, [older]);
    expectInvalidToken(await post('/auth/password/update', { token: older, password: 'from-old-link-1' }));
    assert.equal((await post('/auth/password/update', { token: newer, password: 'from-new-link-1' })).status, 200);
    assert.equal((await login({ email: user.email, password: 'from-new-link-1' })).status, 200);
  });

  it('ends every other live reset link of the user when one is used', async () => {
    const user = await createUser();
    const used = await resetToken(user);
    // Another link issued at the same moment (two requests racing), still live.
    const raced = randomBytes(32).toString('base64url');
    await sql(`INSERT INTO user_tokens (token_hash, user_id, purpose, expires_at) VALUES ($1, $2, 'reset', now() + interval '1 hour')`, [
      createHash('sha256').update(raced).digest('hex'),
      user.id,
    ]);
    assert.equal((await post('/auth/password/update', { token: used, password: 'first-link-1' })).status, 200);
    expectInvalidToken(await post('/auth/password/update', { token: raced, password: 'second-link-2' }));
    assert.equal((await login({ email: user.email, password: 'first-link-1' })).status, 200);
  });

  it('refuses an unknown token with 400 INVALID_TOKEN', async () => {
    expectInvalidToken(await post('/auth/password/update', { token: 'made-up-token', password: 'whatever-pass-1' }));
  });

  it('refuses a token after its hour is over', async () => {
    const user = await createUser();
    const token = await resetToken(user);
    await sql(`UPDATE user_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND purpose = 'reset'`, [user.id]);
    expectInvalidToken(await post('/auth/password/update', { token, password: 'too-late-pass-1' }));
  });

  it('refuses a verification token', async () => {
    const user = await createUser();
    const token = await verifyToken(user);
    expectInvalidToken(await post('/auth/password/update', { token, password: 'wrong-kind-1' }));
  });

  it('applies the password rules, and a refused password does not use the token up', async () => {
    const user = await createUser();
    const token = await resetToken(user);
    const weak = await post('/auth/password/update', { token, password: 'short' });
    assert.equal(weak.status, 400);
    assert.equal(weak.body.error.code, 'VALIDATION_ERROR');
    assert.deepEqual(Object.keys(weak.body.error.details), ['password']);
    assert.equal((await post('/auth/password/update', { token, password: 'good-enough-1' })).status, 200);
  });
});

describe('email verification', () => {
  it('verifies with the mailed token: 200 {success, message, data: {user}}, and /users/me shows it', async () => {
    const user = await createUser();
    const res = await post('/auth/verify', { token: await verifyToken(user) });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.success, true);
    assert.equal(typeof res.body.message, 'string');
    assert.equal(res.body.data.user.id, user.id);
    assert.equal(res.body.data.user.email_verified, true);
    const me = await api('GET', '/v1/users/me', { token: user.accessToken });
    assert.equal(me.body.data.email_verified, true);
  });

  it('works once per token', async () => {
    const user = await createUser();
    const token = await verifyToken(user);
    assert.equal((await post('/auth/verify', { token })).status, 200);
    expectInvalidToken(await post('/auth/verify', { token }));
  });

  it('issues verification tokens valid for 24 hours', async () => {
    const user = await createUser();
    await verifyToken(user);
    assert.deepEqual(await lifetimes(user.id, 'verify'), [24 * 3600]);
  });

  it('lets exactly one of two simultaneous uses of a token succeed', async () => {
    const user = await createUser();
    const token = await verifyToken(user);
    const answers = await Promise.all([post('/auth/verify', { token }), post('/auth/verify', { token })]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 400]);
  });

  it('refuses an unknown token, an expired one and a reset token with 400 INVALID_TOKEN', async () => {
    expectInvalidToken(await post('/auth/verify', { token: 'made-up-token' }));
    const user = await createUser();
    const token = await verifyToken(user);
    await sql(`UPDATE user_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND purpose = 'verify'`, [user.id]);
    expectInvalidToken(await post('/auth/verify', { token }));
    expectInvalidToken(await post('/auth/verify', { token: await resetToken(user) }));
  });

  it('resends a new link on request, and the new link verifies', async () => {
    const user = await createUser();
    const first = await verifyToken(user);
    const res = await post('/auth/verify/resend', { email: user.email });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ['message', 'success']);
    const second = await verifyToken(user, first);
    assert.notEqual(second, first);
    assert.equal((await post('/auth/verify', { token: second })).status, 200);
  });

  it('answers a resend for an unknown email exactly like one for a known email', async () => {
    const user = await createUser();
    const known = await post('/auth/verify/resend', { email: user.email });
    const unknown = await post('/auth/verify/resend', { email: uniqueEmail('nobody') });
    assert.equal(unknown.status, 200);
    assert.deepEqual(unknown.body, known.body);
  });

  it('does not require a verified email to log in', async () => {
    const user = await createUser();
    assert.equal((await login(user)).status, 200);
  });
});

describe('GET /auth/oauth/google', () => {
  it('answers 501 NOT_IMPLEMENTED: coming soon', async () => {
    const res = await api('GET', '/v1/auth/oauth/google', { ip: newIp() });
    assert.equal(res.status, 501);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'NOT_IMPLEMENTED');
    assert.match(res.body.error.message, /coming soon/i);
  });
});
