import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { startApp } from '../helpers/app.ts';
import { CHROMIUM_PATH, hasChromium, launchChromium } from '../helpers/browser.ts';
import { testService } from '../helpers/service.ts';
import { createUser } from '../helpers/users.ts';

/**
 * What a browser makes of the service: a web app on another origin calling the API (CORS, with
 * Chromium's own preflights), and the service's pages under their content security policy.
 */
describe('in a real Chromium', function () {
  this.timeout(30_000);
  let browser: Browser;
  let otherOrigin: http.Server;
  let appUrl: string;

  before(async function () {
    if (!hasChromium()) {
      console.warn(`    (skipped: no Chromium at ${CHROMIUM_PATH}; .ci/run installs Debian's chromium)`);
      this.skip();
    }
    browser = await launchChromium();
    // A web app of somebody else's, on another origin (another port is another origin).
    otherOrigin = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>app</p>'));
    await new Promise<void>((resolve) => otherOrigin.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(otherOrigin.address() as AddressInfo).port}/`;
  });

  after(async () => {
    await browser?.close();
    // Skipped (no Chromium): nothing was started.
    if (otherOrigin) await new Promise((resolve) => otherOrigin.close(resolve));
  });

  const newPage = async (): Promise<Page> => (await browser.newContext()).newPage();

  /** The URLs Chromium sends CORS preflights to (they are its own requests, seen over CDP). */
  async function watchPreflights(page: Page): Promise<string[]> {
    const urls: string[] = [];
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    cdp.on('Network.requestWillBeSent', (e) => void (e.request.method === 'OPTIONS' && urls.push(e.request.url)));
    return urls;
  }

  it('lets a web app on another origin call the API with a bearer token: Chromium preflights, then reads answer and headers', async () => {
    const { service } = await testService();
    const user = await createUser();
    const page = await newPage();
    const preflights = await watchPreflights(page);
    await page.goto(appUrl);
    const result = await page.evaluate(
      async ({ api, token }) => {
        const res = await fetch(`${api}/v1/users/me`, { headers: { authorization: `Bearer ${token}` } });
        const posted = await fetch(`${api}/v1/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'idempotency-key': 'k-1' } });
        return {
          status: res.status,
          username: (await res.json()).data.username,
          remaining: res.headers.get('x-ratelimit-remaining'),
          logout: posted.status,
        };
      },
      { api: service.url, token: user.accessToken },
    );
    assert.equal(result.status, 200);
    assert.equal(result.username, user.username);
    assert.match(result.remaining ?? '', /^\d+$/, 'the rate-limit headers are readable');
    assert.equal(result.logout, 204);
    assert.ok(preflights.some((u) => u.endsWith('/v1/users/me')), `Chromium preflighted the bearer request: ${preflights.join(', ')}`);
    await page.context().close();
  });

  it('is refused by Chromium from an origin CORS_ORIGINS does not list (the check above can fail)', async () => {
    const app = await startApp({ corsOrigins: ['https://app.example'] });
    try {
      const page = await newPage();
      await page.goto(appUrl);
      const outcome = await page.evaluate(
        (url) => fetch(`${url}/healthz`, { headers: { authorization: 'Bearer x' } }).then((r) => `answered ${r.status}`, (e) => `blocked: ${e.name}`),
        app.url,
      );
      assert.equal(outcome, 'blocked: TypeError');
      await page.context().close();
    } finally {
      await app.close();
    }
  });

  it("lets the Colyseus SDK's credentialed matchmaking request through from another origin", async () => {
    const { service } = await testService();
    const page = await newPage();
    await page.goto(appUrl);
    const reservation = await page.evaluate(async (api) => {
      // What @colyseus/sdk sends: credentials 'include', a JSON body.
      const res = await fetch(`${api}/matchmake/joinOrCreate/lobby`, {
        method: 'POST',
        credentials: 'include',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body: '{}',
      });
      return { status: res.status, body: await res.json() };
    }, service.url);
    assert.equal(reservation.status, 200, JSON.stringify(reservation.body));
    assert.equal(reservation.body.name, 'lobby');
    await page.context().close();
  });

  it('renders every page of the service under its CSP without a single violation, and runs the reset form', async () => {
    const { service } = await testService();
    for (const path of ['/docs', '/verify-email?token=nothing', '/reset-password?token=abc', '/play/00000000-0000-4000-8000-000000000000']) {
      const page = await newPage();
      const violations: string[] = [];
      page.on('console', (m) => void (/Content Security Policy|Refused to/i.test(m.text()) && violations.push(m.text())));
      await page.goto(`${service.url}${path}`);
      const seen = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
      assert.match(seen, /system-ui/, `${path}: the page's own style applies`);
      if (path.startsWith('/reset-password')) {
        await page.waitForFunction(() => !(document.querySelector('#reset button') as HTMLButtonElement).disabled);
      }
      assert.deepEqual(violations, [], path);
      await page.context().close();
    }
  });

  it('renders the API reference at /docs with Swagger UI from this origin: request and answer examples, the OAuth 501, no violation', async () => {
    const { service } = await testService();
    const page = await newPage();
    const problems: string[] = [];
    page.on('console', (m) => void ((/Content Security Policy|Refused to/i.test(m.text()) || m.type() === 'error') && problems.push(m.text())));
    page.on('pageerror', (e) => problems.push(e.message));
    const outside: string[] = [];
    page.on('request', (r) => void (new URL(r.url()).origin !== service.url && !r.url().startsWith('data:') && outside.push(r.url())));
    await page.goto(`${service.url}/docs`);
    const createGame = page.locator('.opblock-post', { has: page.locator('.opblock-summary-path', { hasText: /^\/games$/ }) });
    await createGame.locator('.opblock-summary').click();
    const body = createGame.locator('.opblock-body');
    await body.locator('text=Example Value').first().waitFor();
    const text = (await body.textContent()) ?? '';
    assert.match(text, /"opponent_id"/, 'the challenge example');
    assert.match(text, /"invite_url"/, 'the answer example');
    assert.match(text, /PLAYER_BUSY/);
    const oauth = page.locator('.opblock-get', { has: page.locator('.opblock-summary-path', { hasText: '/auth/oauth/google' }) });
    await oauth.locator('.opblock-summary').click();
    await oauth.locator('.response[data-code="501"]').waitFor();
    assert.equal(await oauth.locator('.response[data-code="200"]').count(), 0);
    await page.locator('.opblock-tag', { hasText: 'Rooms' }).waitFor();
    // The WebSockets are no operations (x-websockets), and people read them in the description.
    await page.locator('.info h2', { hasText: 'Game stream (WebSocket)' }).waitFor();
    await page.locator('.info h2', { hasText: 'Realtime channel (WebSocket)' }).waitFor();
    assert.deepEqual(problems, []);
    assert.deepEqual(outside, [], 'nothing is fetched from elsewhere');
    await page.context().close();
  });
});
