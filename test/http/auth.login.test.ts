import assert from 'node:assert/strict';
import { api, newIp } from '../helpers/http.ts';
import { createUser, login, uniqueEmail } from '../helpers/users.ts';

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('POST /auth/login', () => {
  it('answers 200 with the user and a session', async () => {
    const user = await createUser();
    const res = await login(user);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.success, true);
    const { user: u, session } = res.body.data;
    assert.deepEqual(u, {
      id: user.id,
      email: user.email,
      username: user.username,
      avatar_url: `http://chess.test/v1/users/${user.id}/avatar.svg`,
      rating: 1500,
    });
    assert.deepEqual(Object.keys(session).sort(), ['access_token', 'expires_at', 'expires_in', 'refresh_token']);
    assert.equal(session.expires_in, 3600);
    assert.match(session.expires_at, ISO_UTC);
    const inAnHour = Date.now() + 3600_000;
    assert.ok(Math.abs(Date.parse(session.expires_at) - inAnHour) < 10_000);
    const me = await api('GET', '/v1/users/me', { token: session.access_token });
    assert.equal(me.status, 200);
  });

  it('matches the email whatever its case', async () => {
    const user = await createUser();
    assert.equal((await login({ email: user.email.toUpperCase(), password: user.password })).status, 200);
  });

  it('opens a new session per login, each with its own tokens', async () => {
    const user = await createUser();
    const a = await login(user);
    const b = await login(user);
    assert.notEqual(a.body.data.session.refresh_token, b.body.data.session.refresh_token);
    const logout = await api('POST', '/v1/auth/logout', { token: a.body.data.session.access_token, ip: newIp() });
    assert.equal(logout.status, 204);
    assert.equal((await api('GET', '/v1/users/me', { token: b.body.data.session.access_token })).status, 200);
  });

  it('answers a wrong password and an unknown email alike: 401 INVALID_CREDENTIALS', async () => {
    const user = await createUser();
    const wrongPassword = await login({ email: user.email, password: 'not-the-password-1' });
    const unknownEmail = await login({ email: uniqueEmail('nobody'), password: user.password });
    assert.equal(wrongPassword.status, 401);
    assert.equal(wrongPassword.body.error.code, 'INVALID_CREDENTIALS');
    assert.deepEqual(unknownEmail.body, wrongPassword.body);
    assert.equal(unknownEmail.status, wrongPassword.status);
    // A login failure is not about the bearer token: no challenge header.
    assert.equal(wrongPassword.headers.get('www-authenticate'), null);
  });

  it('refuses a password that only matches in its first 72 bytes', async () => {
    const user = await createUser({ password: 'a1'.repeat(36) });
    assert.equal((await login({ email: user.email, password: user.password + 'tail' })).status, 401);
  });

  it('answers an email holding control characters with 400 VALIDATION_ERROR (PostgreSQL text cannot hold NUL)', async () => {
    const res = await login({ email: 'nul\u0000@example.com', password: 'whatever-1' });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(Object.keys(res.body.error.details), ['email']);
  });

  it('answers a body without email or password with 400 VALIDATION_ERROR', async () => {
    const res = await api('POST', '/v1/auth/login', { body: { email: 'x@example.com' }, ip: newIp() });
    assert.equal(res.status, 400);
    assert.deepEqual(Object.keys(res.body.error.details), ['password']);
  });

  describe('throttle', () => {
    /** Five wrong passwords, each from another address (so only the per-email count can trip). */
    async function failFiveTimes(email: string) {
      for (let i = 0; i < 5; i++) {
        const res = await login({ email, password: `wrong-guess-${i}` });
        assert.equal(res.status, 401, `attempt ${i + 1}: ${res.text}`);
      }
    }

    it('answers 429 TOO_MANY_ATTEMPTS with retryAfter and Retry-After after 5 failures for one email', async () => {
      const user = await createUser();
      await failFiveTimes(user.email);
      const res = await login({ email: user.email, password: 'sixth-guess-6' });
      assert.equal(res.status, 429, res.text);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, 'TOO_MANY_ATTEMPTS');
      const retryAfter = res.body.error.retryAfter;
      assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 300, `retryAfter ${retryAfter}`);
      assert.equal(res.headers.get('retry-after'), String(retryAfter));
    });

    it('refuses even the correct password while throttled', async () => {
      const user = await createUser();
      await failFiveTimes(user.email.toUpperCase());
      const res = await login(user);
      assert.equal(res.status, 429, res.text);
      assert.equal(res.body.error.code, 'TOO_MANY_ATTEMPTS');
    });

    it('throttles an unknown email the same way', async () => {
      const email = uniqueEmail('ghost');
      await failFiveTimes(email);
      assert.equal((await login({ email, password: 'x1234567' })).body.error.code, 'TOO_MANY_ATTEMPTS');
    });

    it('leaves other accounts alone', async () => {
      const [victim, other] = await Promise.all([createUser(), createUser()]);
      await failFiveTimes(victim.email);
      assert.equal((await login(other)).status, 200);
    });

    describe('one account, one bucket: every spelling that reaches an account counts against it', () => {
      const fullWidth = (s: string) => s.replace(/[a-z0-9]/g, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0));

      it('folds full-width letters, case and ẞ/ß to the stored address, for the lookup and the throttle alike', async () => {
        const [local, domain] = ['strasse.' + Math.random().toString(36).slice(2, 10), 'example.com'];
        const user = await createUser({ email: `${local}@${domain}` });
        // Five spellings of one address, each failing once.
        const spellings = [
          fullWidth(local) + '@' + domain,
          local.toUpperCase() + '@' + domain.toUpperCase(),
          local.replace('ss', 'ß') + '@' + domain,
          local.replace('ss', 'ẞ').toUpperCase() + '@' + domain,
          ` ${fullWidth(local.toUpperCase())}＠${domain} `,
        ];
        for (const email of spellings) {
          assert.equal((await login({ email, password: 'wrong-guess-1' })).status, 401, email);
        }
        const res = await login(user);
        assert.equal(res.status, 429, `the five failures counted for the account: ${res.text}`);
      });

      it('logs in with a full-width or ß spelling of the address', async () => {
        const local = 'strasse.' + Math.random().toString(36).slice(2, 10);
        const user = await createUser({ email: `${local}@example.com` });
        for (const email of [fullWidth(local) + '@example.com', local.replace('ss', 'ß').toUpperCase() + '@EXAMPLE.COM']) {
          const res = await login({ email, password: user.password });
          assert.equal(res.status, 200, `${email}: ${res.text}`);
          assert.equal(res.body.data.user.id, user.id);
        }
      });

      it('keeps İ apart from i: İvan@ neither reaches ivan@ nor counts against it', async () => {
        const local = 'ivan.' + Math.random().toString(36).slice(2, 10);
        const user = await createUser({ email: `${local}@example.com` });
        const dotted = 'İ' + local.slice(1) + '@example.com';
        for (let i = 0; i < 6; i++) assert.notEqual((await login({ email: dotted, password: user.password })).status, 200, 'İ is not i');
        assert.equal((await login({ email: dotted, password: user.password })).body.error.code, 'TOO_MANY_ATTEMPTS', 'İvan@ has a bucket of its own');
        assert.equal((await login(user)).status, 200, "ivan@'s bucket is untouched");
      });

      it('stores the normalised address at signup: a full-width or upper-case twin is the same email', async () => {
        const local = 'twin.' + Math.random().toString(36).slice(2, 10);
        const first = await api('POST', '/v1/auth/signup', {
          body: { email: `${fullWidth(local).toUpperCase()}@EXAMPLE.COM`, password: 'pass-word-1', username: `tw_${Math.random().toString(36).slice(2, 12)}` },
          ip: newIp(),
        });
        assert.equal(first.status, 201, first.text);
        assert.equal(first.body.data.user.email, `${local}@example.com`);
        const twin = await api('POST', '/v1/auth/signup', {
          body: { email: `${local}@example.com`, password: 'pass-word-1', username: `tw_${Math.random().toString(36).slice(2, 12)}` },
          ip: newIp(),
        });
        assert.equal(twin.status, 409, twin.text);
        assert.equal(twin.body.error.code, 'EMAIL_ALREADY_EXISTS');
      });
    });

    it('does not count successful logins as failures', async () => {
      const user = await createUser();
      for (let i = 0; i < 3; i++) assert.equal((await login(user)).status, 200);
      for (let i = 0; i < 4; i++) assert.equal((await login({ email: user.email, password: `bad-${i}-guess` })).status, 401);
      assert.equal((await login(user)).status, 200);
    });
  });
});
