import assert from 'node:assert/strict';
import { as } from '../helpers/games.ts';
import { api, newIp } from '../helpers/http.ts';
import { createUser } from '../helpers/users.ts';

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

  it('gives every 400 VALIDATION_ERROR details as field → array of messages', async () => {
    const user = await createUser();
    const cases = {
      query: await api('GET', '/v1/games?status=bogus&limit=0', as(user)),
      body: await api('POST', '/v1/auth/signup', { body: { email: 'not-an-email' }, ip: newIp() }),
      json: await api('POST', '/v1/auth/login', { rawBody: '{"email": ', ip: newIp() }),
      // Judged by the service, not by the route's schema.
      timeControl: await api('POST', '/v1/games', as(user, { type: 'matchmaking', time_control: 'bullet', initial_time: 600, increment: 0 })),
      self: await api('POST', '/v1/games', as(user, { type: 'challenge', opponent_id: user.id, time_control: 'blitz', initial_time: 300, increment: 0 })),
    };
    for (const [name, res] of Object.entries(cases)) {
      assert.equal(res.status, 400, `${name}: ${res.text}`);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR', name);
      const details = Object.entries(res.body.error.details ?? {});
      assert.ok(details.length > 0, `${name}: ${res.text}`);
      for (const [field, messages] of details) {
        assert.ok(Array.isArray(messages) && messages.length > 0, `${name}.${field}: ${res.text}`);
        assert.ok(messages.every((m: unknown) => typeof m === 'string' && m.length > 0), `${name}.${field}: ${res.text}`);
      }
    }
    assert.deepEqual(Object.keys(cases.query.body.error.details).sort(), ['limit', 'status']);
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


  it('refuses to let clients create rooms through the matchmake route', async () => {
    const res = await api('POST', '/matchmake/create/game', { body: {} });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'NOT_FOUND');
  });
});
