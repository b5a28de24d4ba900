import assert from 'node:assert/strict';
import { api, newIp } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { MailCatcher } from '../helpers/smtp.ts';
import { createUser, uniqueEmail, uniqueUsername } from '../helpers/users.ts';

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const validBody = () => ({ email: uniqueEmail('signup'), password: 'opening123', username: uniqueUsername('sig') });
const signup = (body: unknown) => api('POST', '/v1/auth/signup', { body, ip: newIp() });

/** Sends the body and expects 400 VALIDATION_ERROR naming exactly `field`. */
async function expectInvalid(body: unknown, field: string, message?: RegExp) {
  const res = await signup(body);
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, 'VALIDATION_ERROR');
  assert.deepEqual(Object.keys(res.body.error.details), [field], res.text);
  assert.ok(Array.isArray(res.body.error.details[field]) && res.body.error.details[field].length > 0);
  if (message) assert.ok(res.body.error.details[field].some((m: string) => message.test(m)), res.text);
}

describe('POST /auth/signup', () => {
  it('creates the account and answers 201 with the user and a session', async () => {
    const body = validBody();
    const res = await signup(body);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.success, true);
    assert.equal(typeof res.body.message, 'string');
    const { user, session } = res.body.data;
    assert.deepEqual(Object.keys(user).sort(), ['created_at', 'email', 'id', 'username']);
    assert.equal(user.email, body.email);
    assert.equal(user.username, body.username);
    assert.match(user.created_at, ISO_UTC);
    assert.deepEqual(Object.keys(session).sort(), ['access_token', 'expires_in', 'refresh_token']);
    assert.equal(session.expires_in, 3600);
    const me = await api('GET', '/v1/users/me', { token: session.access_token });
    assert.equal(me.status, 200);
    assert.equal(me.body.data.id, user.id);
  });

  it('mails a verification link carrying a token', async () => {
    const { mail } = await testService();
    const user = await createUser();
    const received = await mail.waitFor(user.email);
    assert.match(received.raw, /http:\/\/chess\.test\/verify-email\?token=/);
    assert.match(MailCatcher.tokenOf(received), /^[A-Za-z0-9_-]{43}$/);
  });

  it('stores the email trimmed and lower-cased', async () => {
    const email = uniqueEmail('Case');
    const res = await signup({ ...validBody(), email: `  ${email.toUpperCase()} ` });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.data.user.email, email.toLowerCase());
  });

  it('keeps an optional full name and ignores unknown fields', async () => {
    const res = await signup({ ...validBody(), full_name: 'Judit Polgár', role: 'admin', email_verified: true });
    assert.equal(res.status, 201, res.text);
    const me = await api('GET', '/v1/users/me', { token: res.body.data.session.access_token });
    assert.equal(me.body.data.full_name, 'Judit Polgár');
    assert.equal(me.body.data.email_verified, false);
  });

  describe('refuses with 400 VALIDATION_ERROR', () => {
    const cases: Array<[string, Record<string, unknown>, string, RegExp?]> = [
      ['a missing email', { email: undefined }, 'email', /required/],
      ['an email that is not a string', { email: 42 }, 'email'],
      ['a malformed email', { email: 'not-an-email' }, 'email', /valid email/],
      ['an email without a domain', { email: 'someone@' }, 'email'],
      ['an email over 254 characters', { email: `${'a'.repeat(250)}@example.com` }, 'email'],
      ['a missing password', { password: undefined }, 'password', /required/],
      ['a password under 8 characters', { password: 'abc1234' }, 'password', /at least 8/],
      ['a password without a letter', { password: '12345678' }, 'password', /letter/],
      ['a password without a digit', { password: 'abcdefgh' }, 'password', /digit/],
      ['a password over 72 bytes', { password: 'a1'.repeat(36) + 'b' }, 'password', /72 bytes/],
      ['a missing username', { username: undefined }, 'username', /required/],
      ['a username under 3 characters', { username: 'ab' }, 'username', /3 to 20/],
      ['a username over 20 characters', { username: 'a'.repeat(21) }, 'username', /3 to 20/],
      ['a username with other characters', { username: 'bad-name!' }, 'username', /letters, digits and underscores/],
      ['an offensive username', { username: 'ShitHead_99' }, 'username', /offensive/],
      ['an offensive username in leetspeak', { username: 'sh1th34d' }, 'username', /offensive/],
      ['a full name over 100 characters', { full_name: 'x'.repeat(101) }, 'full_name'],
      ['a full name that is not a string', { full_name: ['Ann'] }, 'full_name'],
    ];
    for (const [what, change, field, message] of cases) {
      it(`for ${what}`, () => expectInvalid({ ...validBody(), ...change }, field, message));
    }

    it('for every broken rule of one field at once', async () => {
      const res = await signup({ ...validBody(), password: '!!!' });
      assert.equal(res.body.error.details.password.length, 3, res.text);
    });

    it('for an address in the reserved .invalid domain', () =>
      expectInvalid({ ...validBody(), email: 'someone@mail.invalid' }, 'email', /domain does not exist/));
  });

  it('accepts a password of exactly 72 bytes and 8 characters', async () => {
    assert.equal((await signup({ ...validBody(), password: 'a1'.repeat(36) })).status, 201);
    assert.equal((await signup({ ...validBody(), password: 'abcdefg1' })).status, 201);
  });

  it('refuses an email already in use, whatever its case, with 409 EMAIL_ALREADY_EXISTS', async () => {
    const existing = await createUser();
    const res = await signup({ ...validBody(), email: existing.email.toUpperCase() });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'EMAIL_ALREADY_EXISTS');
  });

  it('refuses a username already taken, whatever its case, with 409 USERNAME_ALREADY_EXISTS', async () => {
    const existing = await createUser();
    const res = await signup({ ...validBody(), username: existing.username.toUpperCase() });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'USERNAME_ALREADY_EXISTS');
  });

  it('gives a username to exactly one of several simultaneous signups', async () => {
    const username = uniqueUsername('race');
    const answers = await Promise.all([1, 2, 3].map(() => signup({ ...validBody(), username })));
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409]);
    for (const a of answers.filter((a) => a.status === 409)) assert.equal(a.body.error.code, 'USERNAME_ALREADY_EXISTS');
  });
});
