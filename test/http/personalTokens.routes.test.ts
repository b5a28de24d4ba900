// DESIGN 2.12: every route that takes a token has a scope decision for personal tokens, made in
// its own record (`scope` beside `auth`: the type requires it), and a route without one has none.
import assert from 'node:assert/strict';
import { SCOPES } from '../../src/auth/scopes.ts';
import { buildRoutes } from '../../src/http/routes/index.ts';
import { api } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';

const routeKey = (r: { method: string; path: string }) => `${r.method.toUpperCase()} ${r.path}`;

describe('personal token scopes of the routes', () => {
  it('names a decision (a known scope, public or session) for every route that takes a token', async () => {
    const { service } = await testService();
    const routes = buildRoutes(service.services).filter((r) => r.auth !== 'none');
    assert.ok(routes.length > 50);
    const decisions = new Set<string>([...SCOPES, 'public', 'session']);
    const missing = routes.filter((r) => !decisions.has(r.scope ?? '')).map((r) => `${routeKey(r)}: ${r.scope}`);
    assert.deepEqual(missing, [], 'routes without a known scope decision');
  });

  it('names none for a route that takes no token', async () => {
    const { service } = await testService();
    const routes = buildRoutes(service.services).filter((r) => r.auth === 'none');
    assert.deepEqual(routes.filter((r) => r.scope !== undefined).map(routeKey), []);
  });

  it('keeps what only a person may do away from personal tokens', async () => {
    const { service } = await testService();
    const scopeOf = new Map(buildRoutes(service.services).map((r) => [routeKey(r), r.scope]));
    for (const key of ['POST /users/me/password', 'POST /users/me/email', 'POST /account/tokens', 'GET /account/tokens', 'DELETE /account/tokens/:id']) {
      assert.equal(scopeOf.get(key), 'session', key);
    }
  });

  it('documents the cst_ bearer and each operation\u2019s scope in the OpenAPI document', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json');
    assert.equal(doc.components.securitySchemes.personalToken.bearerFormat, 'cst_');
    assert.deepEqual(doc.paths['/games/{id}/moves'].post.security, [{ bearer: [] }, { personalToken: ['games:play'] }]);
    assert.deepEqual(doc.paths['/account/tokens'].post.security, [{ bearer: [] }]);
    assert.ok(doc.paths['/games/{id}/moves'].post.responses['403'].content['application/json'].examples.MISSING_SCOPE);
    assert.ok(doc.paths['/account/tokens'].post.responses['403'].content['application/json'].examples.SESSION_REQUIRED);
    assert.ok(doc.paths['/account/tokens'].post.responses['409'].content['application/json'].examples.TOKEN_LIMIT);
  });
});
