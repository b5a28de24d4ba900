// What a signed-in player changes about their account from the settings page: the password
// (other sessions end; the email is account.emailChange.test.ts's); logging in by username; a
// profile looked up by username.
import assert from 'node:assert/strict';
import { api, newIp } from '../helpers/http.ts';
import { createUser, login, uniqueUsername } from '../helpers/users.ts';

const me = (token: string) => api('GET', '/v1/users/me', { token });

describe('POST /users/me/password', () => {
  it('changes the password given the current one, keeps the asking session and ends the others', async () => {
    const user = await createUser();
    const other = (await login(user)).body.data.session;
    const res = await api('POST', '/v1/users/me/password', {
      token: user.accessToken,
      body: { current_password: user.password, new_password: 'a-new-secret-9' },
      ip: newIp(),
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.success, true);
    assert.match(res.body.message, /other sessions/);
    assert.equal((await me(user.accessToken)).status, 200, 'the session that asked goes on');
    assert.equal((await me(other.access_token)).status, 401, 'another session ended');
    const refreshed = await api('POST', '/v1/auth/refresh', { body: { refresh_token: other.refresh_token }, ip: newIp() });
    assert.equal(refreshed.status, 401);
    assert.equal((await login({ email: user.email, password: user.password })).status, 401);
    assert.equal((await login({ email: user.email, password: 'a-new-secret-9' })).status, 200);
  });

  it('refuses a wrong current password (403) and a weak new one (400), changing nothing', async () => {
    const user = await createUser();
    const wrong = await api('POST', '/v1/users/me/password', {
      token: user.accessToken,
      body: { current_password: 'not-the-password-1', new_password: 'a-new-secret-9' },
      ip: newIp(),
    });
    assert.equal(wrong.status, 403, wrong.text);
    assert.equal(wrong.body.error.code, 'FORBIDDEN');
    const weak = await api('POST', '/v1/users/me/password', {
      token: user.accessToken,
      body: { current_password: user.password, new_password: 'short' },
      ip: newIp(),
    });
    assert.equal(weak.status, 400, weak.text);
    assert.deepEqual(Object.keys(weak.body.error.details), ['new_password']);
    const missing = await api('POST', '/v1/users/me/password', { token: user.accessToken, body: {}, ip: newIp() });
    assert.equal(missing.status, 400);
    assert.deepEqual(Object.keys(missing.body.error.details).sort(), ['current_password', 'new_password']);
    assert.equal((await api('POST', '/v1/users/me/password', { body: { current_password: 'x', new_password: 'y' } })).status, 401);
    assert.equal((await login(user)).status, 200, 'the password is unchanged');
  });
});

describe('POST /auth/login by username', () => {
  it('logs in with the username (any case) in place of the email', async () => {
    const user = await createUser({ username: uniqueUsername('Named') });
    const res = await login({ email: user.username.toLowerCase(), password: user.password });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.user.id, user.id);
    const wrong = await login({ email: user.username, password: 'wrong-pass-1' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'INVALID_CREDENTIALS');
    assert.equal((await login({ email: uniqueUsername('nobody'), password: user.password })).status, 401);
  });
});

describe('GET /users/by-username/{username}', () => {
  it("answers the public profile whatever the case, 404 USER_NOT_FOUND for nobody's name", async () => {
    const [user, viewer] = [await createUser({ username: uniqueUsername('Prof') }), await createUser()];
    const res = await api('GET', `/v1/users/by-username/${user.username.toUpperCase()}`, { token: viewer.accessToken });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.id, user.id);
    assert.equal(res.body.data.username, user.username);
    assert.equal(res.body.data.email, undefined, 'public: no email');
    const none = await api('GET', `/v1/users/by-username/${uniqueUsername('ghost')}`, { token: viewer.accessToken });
    assert.equal(none.status, 404);
    assert.equal(none.body.error.code, 'USER_NOT_FOUND');
    const odd = await api('GET', `/v1/users/by-username/${encodeURIComponent("a'%_\\")}`, { token: viewer.accessToken });
    assert.equal(odd.status, 404);
  });

  it('looks a name up in the form the login uses: full-width letters reach it, İ for i does not', async () => {
    const [user, viewer] = [await createUser({ username: uniqueUsername('kiwi') }), await createUser()];
    const fullWidth = user.username.replace(/[a-z]/g, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0));
    const plain = await api('GET', `/v1/users/by-username/${encodeURIComponent(fullWidth)}`, { token: viewer.accessToken });
    assert.equal(plain.status, 200, plain.text);
    assert.equal(plain.body.data.id, user.id);
    const dotted = await api('GET', `/v1/users/by-username/${encodeURIComponent(user.username.replace('i', 'İ'))}`, { token: viewer.accessToken });
    assert.equal(dotted.status, 404, dotted.text);
    assert.equal(dotted.body.error.code, 'USER_NOT_FOUND');
  });
});
