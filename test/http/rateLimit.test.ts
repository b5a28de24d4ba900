import assert from 'node:assert/strict';
import { createRateLimit } from '../../src/http/rateLimit.ts';
import { createRateLimits, limiterFactory } from '../../src/limits.ts';
import { api, newIp } from '../helpers/http.ts';
import { createUser } from '../helpers/users.ts';

describe('Rate limits', () => {
  it('allows 5 authentication requests a minute per address, then answers 429 with Retry-After', async () => {
    const ip = newIp();
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await api('GET', '/v1/auth/oauth/google', { ip }));
    assert.deepEqual(answers.slice(0, 5).map((a) => a.headers.get('x-ratelimit-remaining')), ['4', '3', '2', '1', '0']);
    const limited = answers[5];
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'RATE_LIMIT_EXCEEDED');
    assert.ok(limited.body.error.retryAfter >= 1 && limited.body.error.retryAfter <= 60);
    assert.equal(limited.headers.get('retry-after'), String(limited.body.error.retryAfter));
    assert.equal(limited.headers.get('x-ratelimit-limit'), '5');
  });

  it('sets X-RateLimit-Reset to the end of the window, in Unix seconds', async () => {
    const res = await api('GET', '/v1/auth/oauth/google', { ip: newIp() });
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    const now = Date.now() / 1000;
    assert.ok(reset > now && reset <= now + 61, `reset ${reset} now ${now}`);
  });

  it('counts by user, not by address, when a valid token is sent', async () => {
    const user = await createUser();
    const first = await api('GET', '/v1/users/me', { token: user.accessToken, ip: newIp() });
    const second = await api('GET', '/v1/users/me', { token: user.accessToken, ip: newIp() });
    assert.equal(first.headers.get('x-ratelimit-limit'), '100');
    assert.equal(Number(second.headers.get('x-ratelimit-remaining')), Number(first.headers.get('x-ratelimit-remaining')) - 1);
  });

  it('gives an operation with its own limit a counter that replaces the class one', async () => {
    const user = await createUser();
    const game = await api('GET', '/v1/games/00000000-0000-0000-0000-000000000000', { token: user.accessToken });
    assert.equal(game.headers.get('x-ratelimit-limit'), '60');
    assert.equal(game.headers.get('x-ratelimit-remaining'), '59');
    const read = await api('GET', '/v1/users/me', { token: user.accessToken });
    assert.equal(read.headers.get('x-ratelimit-remaining'), '99');
  });

  it('puts the headers on error responses of limited routes too', async () => {
    const res = await api('GET', '/v1/users/me', { ip: newIp() });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('x-ratelimit-limit'), '100');
    assert.equal(res.headers.get('www-authenticate'), 'Bearer');
  });

  it('never limits the operational endpoints', async () => {
    const ip = newIp();
    for (let i = 0; i < 3; i++) {
      const res = await api('GET', '/healthz', { ip });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-ratelimit-limit'), null);
    }
  });

  it('sets no headers and refuses nothing with RATE_LIMITS=off', async () => {
    const limit = createRateLimit(createRateLimits(false, limiterFactory(undefined)));
    const headers: Record<string, string> = {};
    const res = { setHeader: (k: string, v: string) => (headers[k] = v) } as any;
    const route = { method: 'post', path: '/auth/login' } as any;
    for (let i = 0; i < 10; i++) await limit({ ip: '10.0.0.1' } as any, res, route, undefined);
    assert.deepEqual(headers, {});
  });
});
