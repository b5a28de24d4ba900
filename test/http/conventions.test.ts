import assert from 'node:assert/strict';
import { api } from '../helpers/http.ts';

describe('HTTP conventions', () => {
  it('answers an unknown route with the 404 envelope, not HTML', async () => {
    const res = await api('GET', '/v1/no-such-thing');
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    assert.deepEqual(res.body, { success: false, error: { code: 'NOT_FOUND', message: 'No route for GET /v1/no-such-thing' } });
  });

  it('answers a body that is not JSON with 400 VALIDATION_ERROR', async () => {
    const res = await api('POST', '/v1/auth/login', { rawBody: '{"email": ' });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
  });

  it('answers a body over 64 KB with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await api('POST', '/v1/auth/login', { body: { email: 'x'.repeat(70 * 1024) } });
    assert.equal(res.status, 413);
    assert.equal(res.body.error.code, 'PAYLOAD_TOO_LARGE');
  });

  it('reports liveness on /healthz and readiness of its dependencies on /readyz', async () => {
    const health = await api('GET', '/healthz');
    assert.equal(health.status, 200);
    const ready = await api('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body.data.checks.database, 'ok');
    if (process.env.REDIS_URL) assert.equal(ready.body.data.checks.redis, 'ok');
  });

  it('serves Prometheus metrics', async () => {
    const res = await api('GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(res.text, /process_cpu_user_seconds_total/);
  });

  it('refuses to let clients create rooms through the matchmake route', async () => {
    const res = await api('POST', '/matchmake/create/game', { body: {} });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'NOT_FOUND');
  });
});
