// A signed-in player's change of email (issue 37): it takes effect only once the new address is
// confirmed from the link mailed to it, and the old address is told at once, with no secret in the
// mail. The mails go through the service's SMTP delivery to a real SMTP server in this process.
import assert from 'node:assert/strict';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { MailCatcher, type ReceivedMail } from '../helpers/smtp.ts';
import { createUser, login, uniqueEmail, type TestUser } from '../helpers/users.ts';

const me = async (user: TestUser) => (await api('GET', '/v1/users/me', { token: user.accessToken })).body.data;
const changeEmail = (user: TestUser, body: unknown) => api('POST', '/v1/users/me/email', { token: user.accessToken, body, ip: newIp() });
const verify = (token: string) => api('POST', '/v1/auth/verify', { body: { token }, ip: newIp() });
const canLogIn = async (email: string, user: TestUser) => (await login({ email, password: user.password })).status === 200;

const isNotice = (m: ReceivedMail) => /^Subject: Your email address is being changed/m.test(m.raw);
const isConfirmation = (m: ReceivedMail) => /^Subject: Confirm your new email address/m.test(m.raw);

/** The token of the confirmation link mailed to `to`, once it has arrived (no mail before it is asked for). */
async function linkMailedTo(to: string): Promise<string> {
  const { mail } = await testService();
  const received = await mail.waitFor(to, isConfirmation);
  assert.ok(received.raw.includes('http://chess.test/verify-email?token='), 'the link opens the confirmation page under PUBLIC_URL');
  return MailCatcher.tokenOf(received);
}

async function changed(user: TestUser, email: string): Promise<ApiResponse> {
  const res = await changeEmail(user, { password: user.password, email });
  assert.equal(res.status, 200, res.text);
  return res;
}

function assertRefused(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, code);
  assert.equal(typeof res.body.error.message, 'string');
}

describe('POST /users/me/email: a change that waits for its confirmation', () => {
  it('keeps the old address until the link mailed to the new one is opened: old login until then, new login after', async () => {
    const user = await createUser();
    const next = uniqueEmail('moved');
    const res = await changed(user, next.toUpperCase());
    assert.deepEqual(res.body.data, { email: user.email, email_verified: false, pending_email: next });
    assert.match(res.body.message, new RegExp(`link mailed to ${next.replace(/\./g, '\\.')}`));
    assert.deepEqual(
      { email: (await me(user)).email, pending: (await me(user)).pending_email },
      { email: user.email, pending: next },
      '/users/me shows the address as it stands and the one waiting',
    );
    assert.equal(await canLogIn(user.email, user), true, 'the old address logs in until the change is confirmed');
    assert.equal(await canLogIn(next, user), false, 'the new one does not yet');

    const confirmed = await verify(await linkMailedTo(next));
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.equal(confirmed.body.data.user.email, next);
    assert.equal(confirmed.body.data.user.email_verified, true);
    const after = await me(user);
    assert.deepEqual([after.email, after.email_verified, after.pending_email], [next, true, null]);
    assert.equal(await canLogIn(next, user), true, 'the new address logs in once confirmed');
    assert.equal(await canLogIn(user.email, user), false, 'the old one no longer does');
  });

  it('tells the old address at once, naming the new one, with no token in the mail', async () => {
    const user = await createUser();
    const next = uniqueEmail('moved');
    await changed(user, next);
    const { mail } = await testService();
    const notice = await mail.waitFor(user.email, isNotice);
    assert.ok(notice.raw.includes(next), 'names the new address');
    assert.ok(notice.raw.includes('http://chess.test/forgot-password'), 'its one link mails a reset link');
    assert.doesNotMatch(notice.raw, /token=/, 'no token: the notice can do nothing by itself');
    const token = await linkMailedTo(next);
    assert.ok(!notice.raw.includes(token));
    assert.equal((await mail.waitFor(next, isConfirmation)).to.includes(user.email), false, 'the link goes to the new address only');
  });

  it('confirms through the mailed page too (GET /verify-email), which says the new address is confirmed', async () => {
    const user = await createUser();
    const next = uniqueEmail('paged');
    await changed(user, next);
    const { service } = await testService();
    const page = await fetch(`${service.url}/verify-email?token=${await linkMailedTo(next)}`, { headers: { 'x-forwarded-for': newIp() } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), new RegExp(`<strong>${next.replace(/\./g, '\\.')}</strong> is confirmed`));
    assert.equal((await me(user)).email, next);
  });

  it('lets a newer change replace a waiting one: the older link confirms nothing', async () => {
    const user = await createUser();
    const [first, second] = [uniqueEmail('first'), uniqueEmail('second')];
    await changed(user, first);
    const firstToken = await linkMailedTo(first);
    const res = await changed(user, second);
    assert.equal(res.body.data.pending_email, second);
    assertRefused(await verify(firstToken), 400, 'INVALID_TOKEN');
    assert.deepEqual([(await me(user)).email, (await me(user)).pending_email], [user.email, second]);
    assert.equal((await verify(await linkMailedTo(second))).status, 200);
    assert.equal((await me(user)).email, second);
  });

  it('cancels a waiting change when the current address is asked for', async () => {
    const user = await createUser();
    const next = uniqueEmail('undo');
    await changed(user, next);
    const token = await linkMailedTo(next);
    const res = await changed(user, user.email);
    assert.deepEqual(res.body.data, { email: user.email, email_verified: false, pending_email: null });
    assertRefused(await verify(token), 400, 'INVALID_TOKEN');
    assert.equal((await me(user)).email, user.email);
  });

  it('cancels a waiting change when the password is reset from the old mailbox, as the notice says', async () => {
    const user = await createUser();
    const next = uniqueEmail('thief');
    await changed(user, next);
    const token = await linkMailedTo(next);
    assert.equal((await api('POST', '/v1/auth/password/reset', { body: { email: user.email }, ip: newIp() })).status, 200);
    const { mail } = await testService();
    const reset = MailCatcher.tokenOf(await mail.waitFor(user.email, (m) => m.raw.includes('/reset-password?token=')));
    const updated = await api('POST', '/v1/auth/password/update', { body: { token: reset, password: 'taken-back-42' }, ip: newIp() });
    assert.equal(updated.status, 200, updated.text);
    assertRefused(await verify(token), 400, 'INVALID_TOKEN');
    assert.equal((await login({ email: user.email, password: 'taken-back-42' })).status, 200, 'the account keeps its address');
  });

  it('answers 409 EMAIL_ALREADY_EXISTS when another account took the address before the link was opened, changing nothing', async () => {
    const user = await createUser();
    const next = uniqueEmail('race');
    await changed(user, next);
    const token = await linkMailedTo(next);
    await createUser({ email: next });
    assertRefused(await verify(token), 409, 'EMAIL_ALREADY_EXISTS');
    const after = await me(user);
    assert.equal(after.email, user.email);
    assert.equal(await canLogIn(user.email, user), true);
  });

  it("refuses a wrong password (403), another account's address (409), a malformed or missing field (400) and no token (401)", async () => {
    const [user, other] = [await createUser(), await createUser()];
    assertRefused(await changeEmail(user, { password: 'not-it-123', email: uniqueEmail() }), 403, 'FORBIDDEN');
    assertRefused(await changeEmail(user, { password: user.password, email: other.email.toUpperCase() }), 409, 'EMAIL_ALREADY_EXISTS');
    const malformed = await changeEmail(user, { password: user.password, email: 'nope' });
    assertRefused(malformed, 400, 'VALIDATION_ERROR');
    assert.deepEqual(Object.keys(malformed.body.error.details), ['email']);
    const missing = await changeEmail(user, {});
    assertRefused(missing, 400, 'VALIDATION_ERROR');
    assert.deepEqual(Object.keys(missing.body.error.details).sort(), ['email', 'password']);
    assertRefused(await api('POST', '/v1/users/me/email', { body: { password: user.password, email: uniqueEmail() }, ip: newIp() }), 401, 'UNAUTHORIZED');
    assert.deepEqual([(await me(user)).email, (await me(user)).pending_email], [user.email, null], 'nothing changed, nothing waits');
  });
});
