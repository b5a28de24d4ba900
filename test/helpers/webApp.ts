import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CHROMIUM_PATH, hasChromium, launchChromium } from './browser.ts';
import { createDatabase } from '../support/database.ts';
import { postData, startServiceProcess, type ServiceProcess } from '../support/process.ts';
import { TEST_ENV, testService } from './service.ts';
import { uniqueUsername } from './users.ts';

/**
 * The web app as a person uses it: a browser context of its own (its own storage, so its own
 * session), watching for what must never happen (a CSP violation, an uncaught error).
 */
export type AppUser = { page: Page; context: BrowserContext; problems: string[]; username: string; email: string; password: string };

export const PHONE = { width: 375, height: 740 };

export async function openApp(browser: Browser, base: string, o: { viewport?: { width: number; height: number }; path?: string; base?: string } = {}): Promise<AppUser> {
  const context = await browser.newContext({ baseURL: o.base ?? base, viewport: o.viewport ?? { width: 1200, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    // An answer of 4xx to a fetch is logged by Chromium as an error; the app expects some (409, 404).
    if (/Content Security Policy|Refused to/i.test(m.text()) || (m.type() === 'error' && !/Failed to load resource/.test(m.text()))) {
      problems.push(`console: ${m.text()}`);
    }
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(o.path ?? '/');
  return { page, context, problems, username: uniqueUsername('web'), email: `web.${randomBytes(5).toString('hex')}@example.com`, password: `pw-${randomBytes(5).toString('hex')}-7` };
}

/** Signs up through the app's form and waits until the app shows the user signed in. */
export async function signUp(user: AppUser): Promise<void> {
  const { page } = user;
  await page.goto('/signup');
  await page.fill('#f-username', user.username);
  await page.fill('#f-email', user.email);
  await page.fill('#f-password', user.password);
  await page.click('form.auth button[type=submit]');
  await page.locator('.site-nav .me', { hasText: user.username }).waitFor();
}

/** A move made the way a person makes it: a click on the piece's square, then on the target. */
export async function clickMove(page: Page, from: string, to: string): Promise<void> {
  await page.click(`.play-board rect[data-square="${from}"]`);
  await page.click(`.play-board rect[data-square="${to}"]`);
}

/** The moves the page lists, in order. */
export async function listedMoves(page: Page): Promise<string[]> {
  return page.$$eval('.moves li span', (spans) => spans.map((s) => s.textContent ?? ''));
}

export async function waitForMoves(page: Page, count: number): Promise<string[]> {
  await page.waitForFunction((n) => document.querySelectorAll('.moves li span').length >= n, count);
  return listedMoves(page);
}

export function assertNoProblems(...users: AppUser[]): void {
  for (const u of users) assert.deepEqual(u.problems, [], `${u.username}: no CSP violation, no uncaught error`);
}

/**
 * `npm start`'s process on a database of its own: the default first-move time (a person needs
 * more than the shared test service's 3 s to find a square) and no rate limits (every context
 * comes from 127.0.0.1). Analysis runs at a shallow depth so a finished game is analysed at once;
 * arenas may be as short as the test environment's TOURNAMENT_MIN_MINUTES.
 */
export async function startWebService(env: Record<string, string> = {}): Promise<{ service: ServiceProcess; stop: () => Promise<void> }> {
  const { db } = await testService();
  const database = await createDatabase(db.serverUrl);
  const service = await startServiceProcess(database.url, {
    env: { ANALYSIS_WORKERS: '1', ANALYSIS_DEPTH: '6', TOURNAMENT_MIN_MINUTES: TEST_ENV.TOURNAMENT_MIN_MINUTES, ...env },
  });
  return {
    service,
    stop: async () => {
      service.child.kill('SIGTERM');
      await service.exited;
      await database.drop();
    },
  };
}

export type ApiUser = { id: string; username: string; email: string; password: string; token: string };

/** A user signed up over the API (quicker than the form, for tests about something else). */
export async function apiUser(base: string, username = uniqueUsername('api')): Promise<ApiUser> {
  const email = `${username}@example.com`;
  const data = await postData(`${base}/v1`, '/auth/signup', { email, password: 'web-test-pass-1', username });
  return { id: data.user.id, username, email, password: 'web-test-pass-1', token: data.session.access_token };
}

/** Two users signed up over the API and an accepted challenge between them: `white` moves first. */
export async function gameOverApi(base: string, o: { initial?: number; increment?: number } = {}) {
  const [white, black] = [await apiUser(base), await apiUser(base)];
  const initial = o.initial ?? 600;
  const increment = o.increment ?? 0;
  const game = await postData(`${base}/v1`, '/games',
    { type: 'challenge', opponent_id: black.id, time_control: initial + 40 * increment < 1500 ? 'rapid' : 'classical', initial_time: initial, increment, color: 'white' },
    white.token);
  await postData(`${base}/v1`, `/games/${game.id}/accept`, {}, black.token);
  return { id: game.id as string, white, black };
}

/** Signs an API-made user in through the app's login form. */
export async function logIn(user: AppUser, account: { email: string; password: string; username: string }): Promise<void> {
  const { page } = user;
  await page.goto('/login');
  await page.fill('#f-email', account.email);
  await page.fill('#f-password', account.password);
  await page.click('form.auth button[type=submit]');
  await page.locator('.site-nav .me', { hasText: account.username }).waitFor();
}

/**
 * Screenshots of a run: into `docs/` (committed, shown in the README) when UPDATE_SCREENSHOTS=1,
 * else into .test-data/screenshots (taken every run all the same, so the capture is tested).
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = process.env.UPDATE_SCREENSHOTS === '1' ? path.resolve('docs') : path.resolve('.test-data/screenshots');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/**
 * The hooks of a describe() that drives the app: `npm start`'s process and a Chromium for the
 * whole block (skipped, with one loud line, where there is no Chromium), a browser context per
 * person, closed after each test. `env`: the service's own settings for the block (a short
 * CLAIM_SECONDS, …).
 */
export function webAppSuite(env: Record<string, string> = {}): { base: () => string; open: (o?: Parameters<typeof openApp>[2]) => Promise<AppUser> } {
  let browser: Browser | undefined;
  let service: ServiceProcess | undefined;
  let stop: (() => Promise<void>) | undefined;
  const opened: AppUser[] = [];
  before(async function () {
    if (!hasChromium()) {
      console.warn(`    (skipped: no Chromium at ${CHROMIUM_PATH}; .ci/run installs Debian's chromium)`);
      this.skip();
    }
    this.timeout(60_000);
    ({ service, stop } = await startWebService(env));
    browser = await launchChromium();
  });
  afterEach(async () => {
    for (const u of opened.splice(0)) await u.context.close();
  });
  after(async () => {
    await browser?.close();
    await stop?.();
  });
  return {
    base: () => service!.base,
    open: async (o = {}) => {
      const user = await openApp(browser!, service!.base, o);
      opened.push(user);
      return user;
    },
  };
}

/**
 * A TCP relay in front of the service, so a test can cut a browser's connections the way a
 * network does (every socket dropped at once, no close frame) and let it connect again.
 */
export async function relay(targetPort: number): Promise<{ base: string; cut: () => number; close: () => Promise<void> }> {
  const live = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      live.add(s);
      s.on('close', () => live.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut: () => {
      const n = live.size;
      for (const s of live) s.resetAndDestroy();
      return n;
    },
    close: () => new Promise((resolve) => {
      for (const s of live) s.destroy();
      server.close(() => resolve());
    }),
  };
}
