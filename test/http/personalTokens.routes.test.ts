// DESIGN 2.12: every route that takes a token has a scope decision for personal tokens, made in
// one table (src/http/scopes.ts), and the table names no route that does not exist.
import assert from 'node:assert/strict';
import { SCOPES } from '../../src/auth/scopes.ts';
import { buildRoutes } from '../../src/http/routes/index.ts';
import { ROUTE_SCOPES, routeKey } from '../../src/http/scopes.ts';
import { api } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';

describe('personal token scopes of the routes', () => {
  it('names a decision (a known scope, public or session) for every route that takes a token', async () => {
    const { service } = await testService();
    const routes = buildRoutes(service.services).filter((r) => r.auth !== 'none');
    assert.ok(routes.length > 50);
    const decisions = new Set<string>([...SCOPES, 'public', 'session']);
    const missing = routes.map(routeKey).filter((key) => !(key in ROUTE_SCOPES));
    assert.deepEqual(missing, [], 'routes without a scope decision in src/http/scopes.ts');
    for (const [key, decision] of Object.entries(ROUTE_SCOPES)) assert.ok(decisions.has(decision), `${key}: ${decision}`);
  });

  it('names only routes that exist and take a token', async () => {
    const { service } = await testService();
    const keys = new Set(buildRoutes(service.services).filter((r) => r.auth !== 'none').map(routeKey));
    assert.deepEqual(Object.keys(ROUTE_SCOPES).filter((k) => !keys.has(k)), []);
  });

  it('keeps what only a person may do away from personal tokens', () => {
    for (const key of ['POST /users/me/password', 'POST /users/me/email', 'POST /account/tokens', 'GET /account/tokens', 'DELETE /account/tokens/:id']) {
      assert.equal(ROUTE_SCOPES[key], 'session', key);
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
