import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { APP_PATHS } from '../../src/http/web.ts';
import { challenge, createActiveGame } from '../helpers/games.ts';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser } from '../helpers/users.ts';

/** A browser opening an address of the app: a plain GET. */
const open = (path: string, headers: Record<string, string> = {}) => api('GET', path, { ip: newIp(), headers });

/** The shell every page of the app (and /docs) is: one script and one stylesheet, nothing inline. */
function assertShell(res: ApiResponse, status = 200) {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  const csp = res.headers.get('content-security-policy') ?? '';
  for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
    assert.ok(csp.split('; ').includes(directive), `${directive} in ${csp}`);
  }
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:\/\//);
  assert.doesNotMatch(res.text, /<script>|<style>|\sstyle=|\son[a-z]+=/i, 'nothing inline');
  const scripts = [...res.text.matchAll(/<script type="module" src="(\/assets\/[^"]+\.js)"><\/script>/g)].map((m) => m[1]);
  const styles = [...res.text.matchAll(/<link rel="stylesheet" href="(\/assets\/[^"]+\.css)">/g)].map((m) => m[1]);
  assert.equal(scripts.length, 1, res.text);
  assert.equal(styles.length, 1, res.text);
  return { script: scripts[0], style: styles[0] };
}

/** The bytes as sent (fetch would decompress them). */
function rawGet(url: string, encoding: string): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { 'accept-encoding': encoding, 'x-forwarded-for': newIp() } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

describe('the web app (src/web) and its assets', () => {
  it('answers every path of the app with the same shell: its hashed script and stylesheet, a strict policy, no-cache', async () => {
    const shells = new Set<string>();
    for (const pattern of APP_PATHS) {
      const res = await open(pattern.replace(':id', randomUUID()).replace(':username', 'someone'));
      const { script, style } = assertShell(res);
      assert.match(script, /^\/assets\/app-[A-Z0-9]{8}\.js$/);
      assert.match(style, /^\/assets\/app-[A-Z0-9]{8}\.css$/);
      shells.add(res.text);
    }
    assert.equal(shells.size, 1, 'one shell for every page: the app draws the page');
  });

  it("answers exactly the app's own pages (src/web/routes.ts and APP_PATHS list the same paths)", () => {
    const table = readFileSync(path.resolve('src/web/routes.ts'), 'utf8');
    const appPaths = [...table.matchAll(/^\s+\{ path: '([^']+)'/gm)].map((m) => m[1]);
    assert.ok(appPaths.length >= 9, appPaths.join(' '));
    assert.deepEqual([...appPaths].sort(), [...APP_PATHS].sort());
  });

  it('serves the bundle as immutable files with their content types, gzipped when asked, and 404s anything else under /assets', async () => {
    const { script, style } = assertShell(await open('/'));
    const js = await open(script);
    assert.equal(js.status, 200);
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(js.text, /\/v1\/realtime/, 'the app is in it');
    const css = await open(style);
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    assert.match(css.text, /cm-chessboard/, 'the board stylesheet is bundled with the app');
    // The pieces are a file of their own, named by the bundle.
    const sprite = /\/assets\/standard-[A-Z0-9]{8}\.svg/.exec(js.text)?.[0];
    assert.ok(sprite, 'the script names the piece sprite');
    const svg = await open(sprite);
    assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
    assert.match(svg.text, /<svg/);

    const { service } = await testService();
    const [zipped, plain] = await Promise.all([rawGet(`${service.url}${script}`, 'gzip'), rawGet(`${service.url}${script}`, 'identity')]);
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    assert.equal(zipped.headers.vary, 'Accept-Encoding');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.ok(zipped.body.length < plain.body.length / 2);
    assert.deepEqual(gunzipSync(zipped.body), plain.body, 'the same bytes');
    for (const missing of ['/assets/app-AAAAAAAA.js', '/assets/..%2Fpackage.json', '/assets/%00']) {
      const res = await open(missing);
      assert.equal(res.status, 404, missing);
      assert.equal(res.body.error.code, 'NOT_FOUND');
    }
  });

  it('answers /play/{id} alike for a pending challenge, a game in progress and an unknown id, so the page tells no one a challenge exists', async () => {
    const [a, b] = [await createUser(), await createUser()];
    const pending = await challenge(a, b);
    const active = await createActiveGame(await createUser(), await createUser());
    const answers = await Promise.all([pending, active.id, randomUUID()].map((id) => open(`/play/${id}`)));
    for (const res of answers) assertShell(res);
    assert.equal(new Set(answers.map((r) => r.text)).size, 1);
    for (const name of [a.username, b.username, active.white.username]) assert.ok(!answers[0].text.includes(name));
  });

  it('answers a malformed game id with the shell under 404 (the app says there is no such game)', async () => {
    for (const path of ['/play/not-a-game', `/play/${'1'.repeat(300)}`, '/play/%3Cscript%3E']) {
      const res = await open(path);
      assertShell(res, 404);
      assert.doesNotMatch(res.text, /<script>/);
    }
  });

  it('serves the API reference at /docs: Swagger UI from this origin, rendering /v1/openapi.json', async () => {
    const res = await open('/docs');
    const { script, style } = assertShell(res);
    assert.match(script, /^\/assets\/docs-[A-Z0-9]{8}\.js$/);
    assert.match(res.text, /href="\/v1\/openapi.json"/);
    const js = await open(script);
    assert.equal(js.status, 200);
    assert.match(js.text, /\/v1\/openapi\.json/);
    assert.match(js.text, /swagger/i);
    assert.equal((await open(style)).status, 200);
  });

  it('leaves the API and unknown paths to the JSON envelope', async () => {
    for (const path of ['/v1/play/x', '/nothing-here', '/assets']) {
      const res = await open(path);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/, path);
    }
  });

  it("answers a browser's unknown address with the app under 404 (its not-found page), an API client's with the envelope", async () => {
    const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
    for (const path of ['/profile', '/nothing/here', '/@', '/games/x']) assertShell(await open(path, browser), 404);
    // The API, the assets and the operations endpoints keep their JSON 404 whatever the client accepts.
    for (const path of ['/v1/nothing', '/api/nothing', '/api/v1/games/x/y/z', '/assets/nothing.js', '/metrics/x']) {
      const res = await open(path, browser);
      assert.equal(res.status, 404, path);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/, path);
    }
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, text/html']) {
      const res = await open('/profile', accept ? { accept } : {});
      assert.equal(res.status, 404);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/, String(accept));
      assert.equal(res.body.error.code, 'NOT_FOUND');
    }
    const post = await api('POST', '/profile', { headers: browser, body: {}, ip: newIp() });
    assert.match(post.headers.get('content-type') ?? '', /application\/json/);
  });
});
