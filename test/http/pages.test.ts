import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import vm from 'node:vm';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { MailCatcher, type ReceivedMail } from '../helpers/smtp.ts';
import { createUser, login, type TestUser } from '../helpers/users.ts';

/** A browser opening a link: a plain GET from an address of its own (pages are rate limited). */
const open = (path: string) => api('GET', path, { ip: newIp() });
const isVerify = (m: ReceivedMail) => m.raw.includes('/verify-email?token=');
const isReset = (m: ReceivedMail) => m.raw.includes('/reset-password?token=');

async function mailedToken(user: TestUser, match: (m: ReceivedMail) => boolean): Promise<string> {
  const { mail } = await testService();
  return MailCatcher.tokenOf(await mail.waitFor(user.email, match));
}

/** The headers every page carries: HTML, a CSP without outside sources, never cached. */
function assertPage(res: ApiResponse, status: number) {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|https?:|\*/);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.match(res.text, /^<!doctype html>/);
}

/** Every inline script is allowed by its hash in the CSP (else the browser would not run it). */
function assertScriptsAllowed(res: ApiResponse) {
  const csp = res.headers.get('content-security-policy') ?? '';
  for (const [, source] of res.text.matchAll(/<script>([\s\S]*?)<\/script>/g)) {
    const digest = `'sha256-${createHash('sha256').update(source, 'utf8').digest('base64')}'`;
    assert.ok(csp.includes(digest), `script hash ${digest} missing from ${csp}`);
  }
}

/**
 * Runs a page's inline script against the few DOM calls it makes (a browser stands in), its
 * fetch going to the running service. Returns what it shows and a way to submit the form.
 */
async function runResetScript(page: ApiResponse) {
  const { service } = await testService();
  const source = page.text.match(/<script>([\s\S]*?)<\/script>/)![1];
  const element = (): any => ({ children: [] as any[], appendChild(c: any) { this.children.push(c); return c; } });
  let onSubmit: (event: { preventDefault(): void }) => Promise<void> = async () => {};
  const button = { disabled: true };
  const form = {
    hidden: false,
    token: { value: page.text.match(/name="token" value="([^"]*)"/)![1] },
    password: { value: '' },
    confirm: { value: '' },
    querySelector: () => button,
    addEventListener: (_type: string, f: typeof onSubmit) => void (onSubmit = f),
  };
  const result = {
    shown: [] as any[],
    after: [] as any[],
    replaceChildren(...nodes: any[]) { this.shown = nodes; this.after = []; },
    appendChild(c: any) { this.after.push(c); return c; },
  };
  const document = { getElementById: (id: string) => ({ reset: form, result })[id], createElement: element };
  const fetch = (url: string, init: RequestInit) =>
    globalThis.fetch(service.url + url, { ...init, headers: { ...(init.headers as object), 'x-forwarded-for': newIp() } });
  vm.runInNewContext(source, { document, fetch });
  return {
    button,
    form,
    /** The links the script added after its answer. */
    links: () => result.after.map((p: any) => p.children[0]).map(({ className, href, textContent }: any) => ({ className, href, textContent })),
    async submit(password: string, confirm = password) {
      Object.assign(form, { password: { value: password }, confirm: { value: confirm } });
      await onSubmit({ preventDefault() {} });
      const [p, list] = result.shown;
      return { failed: p.className === 'error', text: [p.textContent, ...(list?.children ?? []).map((li: any) => li.textContent)] };
    },
  };
}

describe('GET /verify-email (the mailed confirmation link)', () => {
  it('confirms the email of a real signup mail, and /users/me shows it', async () => {
    const user = await createUser();
    const res = await open(`/verify-email?token=${await mailedToken(user, isVerify)}`);
    assertPage(res, 200);
    assert.match(res.text, /Email confirmed/);
    const me = await api('GET', '/v1/users/me', { token: user.accessToken, ip: user.ip });
    assert.equal(me.body.data.email_verified, true);
  });

  it('shows the invalid-link page with 400 when the link is opened again', async () => {
    const user = await createUser();
    const path = `/verify-email?token=${await mailedToken(user, isVerify)}`;
    assertPage(await open(path), 200);
    const again = await open(path);
    assertPage(again, 400);
    assert.match(again.text, /This link is invalid or has expired/);
    // A new link is a click away, and the app is one more.
    assert.match(again.text, /<a class="button" href="\/confirm-email">Send me a new confirmation link<\/a>/);
    assert.match(again.text, /<a href="\/">← Back to the app<\/a>/);
  });

  it('answers a missing, empty, repeated, huge or garbage token with the 400 page, never 500', async () => {
    const paths = [
      '/verify-email',
      '/verify-email?token=',
      '/verify-email?token=a&token=b',
      `/verify-email?token=${'x'.repeat(5000)}`,
      '/verify-email?token=%00%FF%ED%A0%80',
      '/verify-email?token=%E0%A4%A',
      `/verify-email?token=${encodeURIComponent("'; DROP TABLE users; --")}`,
    ];
    for (const path of paths) {
      const res = await open(path);
      assertPage(res, 400);
      assert.match(res.text, /This link is invalid or has expired/, path);
    }
  });

  it('does not use the token up on HEAD (link checkers), so the GET still confirms', async () => {
    const user = await createUser();
    const path = `/verify-email?token=${await mailedToken(user, isVerify)}`;
    assert.equal((await api('HEAD', path, { ip: newIp() })).status, 200);
    assertPage(await open(path), 200);
  });
});

describe('GET /reset-password (the mailed reset link)', () => {
  it('renders a form whose script posts JSON to /v1/auth/password/update, allowed by the CSP', async () => {
    const res = await open('/reset-password?token=some-token');
    assertPage(res, 200);
    assert.match(res.text, /<form id="reset"/);
    assert.match(res.text, /<input type="hidden" name="token" value="some-token">/);
    assert.equal((res.text.match(/type="password"/g) ?? []).length, 2);
    assert.match(res.text, /fetch\('\/v1\/auth\/password\/update'/);
    assert.match(res.text, /'Content-Type': 'application\/json'/);
    assert.match(res.headers.get('content-security-policy') ?? '', /connect-src 'self'/);
    assertScriptsAllowed(res);
  });

  it('answers without a token, or with one too long to be ours, with the 400 page', async () => {
    for (const path of ['/reset-password', '/reset-password?token=', `/reset-password?token=${'y'.repeat(600)}`]) {
      const res = await open(path);
      assertPage(res, 400);
      assert.doesNotMatch(res.text, /<form/);
      assert.match(res.text, /<a class="button" href="\/forgot-password">Send me a new reset link<\/a>/);
    }
  });

  it('its script sends the form to the API and shows the answer: mismatch, rule messages, success', async () => {
    const user = await createUser();
    assert.equal((await api('POST', '/v1/auth/password/reset', { body: { email: user.email }, ip: newIp() })).status, 200);
    const browser = await runResetScript(await open(`/reset-password?token=${await mailedToken(user, isReset)}`));
    assert.equal(browser.button.disabled, false);
    assert.deepEqual(await browser.submit('one-password-1', 'another-one-2'), { failed: true, text: ['The two passwords differ.'] });
    const weak = await browser.submit('short');
    assert.equal(weak.failed, true);
    assert.equal(weak.text[0], 'Invalid request data');
    assert.ok(weak.text.includes('password must be at least 8 characters'), weak.text.join(' | '));
    const done = await browser.submit('set-by-the-page-1');
    assert.deepEqual(done, { failed: false, text: ['Password updated. Please log in again.'] });
    assert.equal(browser.form.hidden, true);
    assert.equal(browser.links().at(-1)?.href, '/login', 'a way on to log in');
    // The link used up: the page says so and offers a new one.
    browser.form.hidden = false;
    const used = await browser.submit('set-again-by-page-2');
    assert.equal(used.failed, true);
    assert.equal(browser.form.hidden, true);
    assert.deepEqual(browser.links().at(-1), { className: 'button', href: '/forgot-password', textContent: 'Send me a new reset link' });
    assert.equal((await login({ email: user.email, password: 'set-by-the-page-1' })).status, 200);
  });

  it('works end to end with the mailed token: the form’s request sets the password', async () => {
    const user = await createUser();
    assert.equal((await api('POST', '/v1/auth/password/reset', { body: { email: user.email }, ip: newIp() })).status, 200);
    const token = await mailedToken(user, isReset);
    const page = await open(`/reset-password?token=${token}`);
    assertPage(page, 200);
    // What the inline script sends: the hidden field's token and the new password.
    const sent = page.text.match(/name="token" value="([^"]*)"/)![1];
    assert.equal(sent, token);
    const weak = await api('POST', '/v1/auth/password/update', { body: { token: sent, password: 'short' }, ip: newIp() });
    assert.equal(weak.status, 400);
    assert.ok(weak.body.error.details.password.length > 0);
    const res = await api('POST', '/v1/auth/password/update', { body: { token: sent, password: 'from-the-page-1' }, ip: newIp() });
    assert.equal(res.status, 200, res.text);
    assert.equal(typeof res.body.message, 'string');
    assert.equal((await login({ email: user.email, password: 'from-the-page-1' })).status, 200);
  });
});

describe('pages and user input', () => {
  it('escapes what the address carries: a token with <script> is shown as text', async () => {
    const evil = `"><script>alert(1)</script>&'`;
    const res = await open(`/reset-password?token=${encodeURIComponent(evil)}`);
    assertPage(res, 200);
    assert.ok(!res.text.includes('<script>alert(1)'));
    assert.ok(res.text.includes('value="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#38;&#39;"'));
    const verify = await open(`/verify-email?token=${encodeURIComponent(evil)}`);
    assertPage(verify, 400);
    assert.ok(!verify.text.includes('<script>alert(1)'));
  });

  it('leaves the API untouched: /v1 still answers unknown routes with the JSON envelope', async () => {
    const res = await open('/v1/verify-email?token=x');
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  });
});
