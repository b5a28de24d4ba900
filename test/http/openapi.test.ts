import assert from 'node:assert/strict';
import { buildRoutes } from '../../src/http/routes/index.ts';
import { api } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';

describe('API reference', () => {
  it('serves an OpenAPI 3.1 document that lists every route the service mounts', async () => {
    const { service } = await testService();
    const res = await api('GET', '/v1/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    const documented = new Set(
      Object.entries<Record<string, unknown>>(res.body.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`)),
    );
    const routes = buildRoutes(service.services).filter((r) => !r.hidden);
    assert.ok(routes.length > 10);
    for (const r of routes) {
      const key = `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`;
      assert.ok(documented.has(key), `missing from OpenAPI: ${key}`);
    }
  });

  it('documents request bodies from the validating schemas', async () => {
    const res = await api('GET', '/v1/openapi.json');
    const signup = res.body.paths['/auth/signup'].post;
    const schema = signup.requestBody.content['application/json'].schema;
    assert.ok(schema.properties.email && schema.properties.password && schema.properties.username);
  });

  it('documents each success body as it is sent: message envelopes, lists with pagination, raw PGN and SVG', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json');
    const json = (path: string, method: string, status: string) =>
      doc.paths[path][method].responses[status].content['application/json'].schema;
    assert.ok(json('/auth/password/reset', 'post', '200').properties.message);
    assert.ok(json('/auth/signup', 'post', '201').properties.data);
    assert.ok(json('/games', 'get', '200').properties.pagination);
    assert.ok(json('/users/search', 'get', '200').properties.pagination);
    assert.ok(doc.paths['/games/{id}/pgn'].get.responses['200'].content['application/x-chess-pgn']);
    assert.ok(doc.paths['/users/{id}/avatar.svg'].get.responses['200'].content['image/svg+xml']);
    assert.equal(doc.paths['/auth/logout'].post.responses['204'].content, undefined);
  });

  it('documents both WebSockets with their messages and close codes', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json');
    const stream = doc.paths['/games/{id}/stream'].get;
    assert.ok(stream.responses['101']);
    for (const word of ['state', 'move', 'time_update', 'game_end', 'since', '4404', '1012']) assert.match(stream.description, new RegExp(word));
    const realtime = doc.paths['/realtime'].get;
    for (const word of ['subscribe', 'unsubscribe', 'ping', 'game:<id>', 'user:<your id>', 'lobby']) assert.ok(realtime.description.includes(word), word);
  });

});
