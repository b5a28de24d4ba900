import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { startApp } from '../helpers/app.ts';
import { api, newIp } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser, login } from '../helpers/users.ts';

/** A request to the test service straight from this machine: no X-Forwarded-For (api() adds one). */
async function direct(path: string, headers: Record<string, string> = {}) {
  const { service } = await testService();
  const res = await fetch(`${service.url}${path}`, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const sha256 = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

describe('security headers', () => {
  it('sends X-Content-Type-Options: nosniff on every answer: API data and errors, matchmaking, operations, pages', async () => {
    const user = await createUser();
    const answers = {
      data: await api('GET', '/v1/users/me', { token: user.accessToken }),
      notFound: await api('GET', '/v1/nothing-here'),
      badJson: await api('POST', '/v1/auth/login', { rawBody: '{', ip: newIp() }),
      matchmake: await api('POST', '/matchmake/joinById/nope', { body: {} }),
      health: await api('GET', '/healthz'),
      docs: await api('GET', '/docs'),
      page: await api('GET', `/play/${randomUUID()}`),
      root: await api('GET', '/'),
    };
    for (const [name, res] of Object.entries(answers)) assert.equal(res.headers.get('x-content-type-options'), 'nosniff', name);
  });

  it('keeps every answer of the auth endpoints out of caches (Cache-Control: no-store), errors included', async () => {
    const user = await createUser();
    const answers = {
      signup: await api('POST', '/v1/auth/signup', { body: { email: `x${Date.now()}@example.com`, password: 'pass-word-1', username: `ns_${Date.now() % 1e9}` }, ip: newIp() }),
      login: await login(user),
      badLogin: await login({ email: user.email, password: 'wrong-pass-1' }),
      refresh: await api('POST', '/api/auth/refresh', { body: { refresh_token: user.refreshToken }, ip: newIp() }),
      logout: await api('POST', '/api/v1/auth/logout', { token: user.accessToken, ip: newIp() }),
    };
    for (const [name, res] of Object.entries(answers)) {
      assert.ok(res.status < 500, `${name}: ${res.text}`);
      assert.equal(res.headers.get('cache-control'), 'no-store', name);
    }
  });

  it('gives every HTML page a CSP that allows exactly its own inline style and script, and nothing inline else', async () => {
    const pages = ['/docs', '/verify-email', '/reset-password?token=abc', `/play/${randomUUID()}`, '/play/not-a-uuid'];
    for (const path of pages) {
      const res = await api('GET', path);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/, path);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'none'/, `${path}: ${csp}`);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, path);
      for (const [, tag, body] of res.text.matchAll(/<(style|script)>([\s\S]*?)<\/\1>/g)) {
        assert.ok(csp.includes(sha256(body)), `${path}: the inline ${tag} is allowed by its hash`);
      }
    }
  });

  it('sends HSTS only when PUBLIC_URL is https', async () => {
    const plain = await api('GET', '/healthz');
    assert.equal(plain.headers.get('strict-transport-security'), null);
    const app = await startApp({ https: true });
    try {
      const res = await fetch(`${app.url}/healthz`);
      assert.match(res.headers.get('strict-transport-security') ?? '', /^max-age=\d{7,}/);
    } finally {
      await app.close();
    }
  });
});

describe('/metrics access', () => {
  it('serves this machine without METRICS_TOKEN, and nobody relayed by a proxy or elsewhere', async () => {
    const local = await direct('/metrics');
    assert.equal(local.status, 200, local.text);
    assert.match(local.text, /process_cpu_user_seconds_total/);
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip']) {
      const relayed = await direct('/metrics', { [header]: '203.0.113.7' });
      assert.equal(relayed.status, 403, header);
      assert.equal(JSON.parse(relayed.text).error.code, 'FORBIDDEN');
    }
  });

  it('asks for METRICS_TOKEN as a bearer token when it is set', async () => {
    const app = await startApp({ metricsToken: 'metrics-token-0123456789' });
    try {
      const none = await fetch(`${app.url}/metrics`);
      assert.equal(none.status, 401);
      assert.equal(none.headers.get('www-authenticate'), 'Bearer');
      const wrong = await fetch(`${app.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456780' } });
      assert.equal(wrong.status, 401);
      const right = await fetch(`${app.url}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789', 'x-forwarded-for': '203.0.113.7' } });
      assert.equal(right.status, 200, 'the token works from anywhere');
    } finally {
      await app.close();
    }
  });
});

describe('CORS (DESIGN 2.1)', () => {
  const preflight = (url: string, origin: string, headers = 'authorization, content-type, idempotency-key') =>
    fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': headers } });

  it('answers an API preflight from any origin: 204, methods, headers, max-age, * without credentials', async () => {
    const { service } = await testService();
    const res = await preflight(`${service.url}/v1/games`, 'https://elsewhere.example');
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.equal(res.headers.get('access-control-allow-credentials'), null);
    for (const m of ['GET', 'POST', 'PATCH', 'DELETE']) assert.match(res.headers.get('access-control-allow-methods') ?? '', new RegExp(m));
    for (const h of ['Authorization', 'Content-Type', 'Idempotency-Key']) assert.match(res.headers.get('access-control-allow-headers') ?? '', new RegExp(h, 'i'));
    assert.ok(Number(res.headers.get('access-control-max-age')) >= 600);
  });

  it('lets a browser read the answer and its rate-limit headers', async () => {
    const res = await api('GET', '/v1/users/search?q=a', { headers: { origin: 'https://elsewhere.example' } });
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    const exposed = res.headers.get('access-control-expose-headers') ?? '';
    for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']) assert.match(exposed, new RegExp(h));
  });

  it('with CORS_ORIGINS, allows the listed origins only (echoed, Vary: Origin)', async () => {
    const app = await startApp({ corsOrigins: ['https://app.example', 'http://localhost:5173'] });
    try {
      const listed = await preflight(`${app.url}/v1/games`, 'http://localhost:5173');
      assert.equal(listed.status, 204);
      assert.equal(listed.headers.get('access-control-allow-origin'), 'http://localhost:5173');
      assert.match(listed.headers.get('vary') ?? '', /Origin/);
      const other = await preflight(`${app.url}/v1/games`, 'https://evil.example');
      assert.equal(other.headers.get('access-control-allow-origin'), null, 'a browser blocks the other origin');
      assert.equal(other.headers.get('access-control-allow-methods'), null);
      const simple = await fetch(`${app.url}/healthz`, { headers: { origin: 'https://evil.example' } });
      assert.equal(simple.headers.get('access-control-allow-origin'), null);
    } finally {
      await app.close();
    }
  });
});
