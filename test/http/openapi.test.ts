import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { examplesOf } from '../../src/http/openapi.ts';
import { Conformance } from '../support/openapiConformance.ts';
import { buildRoutes } from '../../src/http/routes/index.ts';
import { api } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';

describe('API reference', () => {
  it('serves an OpenAPI 3.1 document that lists every route the service mounts, under the operationId of its record', async () => {
    const { service } = await testService();
    const res = await api('GET', '/v1/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, '3.1.0');
    const documented = new Map(
      Object.entries<Record<string, { operationId: string }>>(res.body.paths).flatMap(([p, ops]) => Object.entries(ops).map(([m, op]) => [`${m} ${p}`, op.operationId])),
    );
    const routes = buildRoutes(service.services).filter((r) => !r.hidden);
    assert.ok(routes.length > 10);
    for (const r of routes) {
      const key = `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`;
      assert.ok(documented.has(key), `missing from OpenAPI: ${key}`);
      assert.equal(documented.get(key), r.operationId, key);
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

  it('documents both WebSockets outside paths (x-websockets) and in the description, with their messages and close codes', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json');
    // The stream's URL is an HTTP operation too (NDJSON), but no 101 a generated client would call.
    assert.deepEqual(Object.keys(doc.paths['/games/{id}/stream']), ['get']);
    assert.equal(doc.paths['/games/{id}/stream'].get.responses['101'], undefined);
    assert.equal(doc.paths['/realtime'], undefined);
    const [stream, realtime] = doc['x-websockets'];
    assert.deepEqual([stream.name, realtime.name], ['gameStream', 'realtime']);
    assert.match(stream.url, /^ws:\/\/.*\/v1\/games\/\{id\}\/stream$/);
    for (const word of ['state', 'move', 'time_update', 'game_end', 'since', '4404', '1012']) assert.match(stream.description, new RegExp(word));
    for (const word of ['subscribe', 'unsubscribe', 'ping', 'game:<id>', 'user:<your id>', 'lobby']) assert.ok(realtime.description.includes(word), word);
    assert.ok(doc.info.description.includes('## Game stream (WebSocket)') && doc.info.description.includes(stream.description), 'shown on /docs');
  });

  it('documents the HTTP forms of the stream and the user channel as application/x-ndjson', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json');
    const stream = doc.paths['/games/{id}/stream'].get;
    assert.ok(stream.responses['200'].content['application/x-ndjson']);
    assert.match(stream.description, /Accept: application\/x-ndjson/);
    const events = doc.paths['/stream/events'].get;
    assert.ok(events.responses['200'].content['application/x-ndjson']);
    assert.ok(events.responses['401']);
    assert.deepEqual(events.security, [{ bearer: [] }, { personalToken: ['games:read'] }]);
    for (const word of ['keep-alive', 'since', 'UNAUTHORIZED']) assert.ok(events.description.includes(word), word);
  });

  it('names the shared shapes as components, referenced everywhere, each with an operationId per operation', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json');
    const schemas = doc.components.schemas;
    for (const name of ['Game', 'GameListItem', 'PendingGame', 'Player', 'ErrorEnvelope', 'Pagination', 'User', 'PublicUser', 'Club', 'Tournament', 'Webhook', 'Puzzle', 'SeatReservation']) {
      assert.ok(schemas[name], `components.schemas.${name}`);
    }
    // A component is its shape, never the null a nullable use adds; a nullable use is anyOf [$ref, null].
    for (const [name, schema] of Object.entries<any>(schemas)) assert.ok(!JSON.stringify(schema.type ?? '').includes('null'), `${name} is nullable`);
    assert.deepEqual(schemas.Game.properties.white_player, { anyOf: [{ $ref: '#/components/schemas/Player' }, { type: 'null' }] });
    const text = JSON.stringify(doc);
    assert.equal((text.match(/"code":\{"type":"string"\}/g) ?? []).length, 1, 'the error envelope is written once');
    assert.equal((text.match(/"hasNext":\{/g) ?? []).length, 1, 'pagination is written once');
    const ids = Object.values<any>(doc.paths).flatMap((ops) => Object.values<any>(ops).map((op) => op.operationId));
    assert.ok(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)), 'camelCase');
    assert.equal(new Set(ids).size, ids.length, 'unique');
    for (const [path, method, id] of [['/games/{id}', 'get', 'getGame'], ['/games/{id}/moves', 'post', 'makeMove'], ['/games', 'post', 'createGame']]) {
      assert.equal(doc.paths[path][method].operationId, id);
    }
    const created = doc.paths['/games'].post.responses['201'].content['application/json'].schema;
    assert.deepEqual(created.required, ['success', 'data']);
    assert.deepEqual(created.properties.data.discriminator, {
      propertyName: 'status',
      mapping: { pending: '#/components/schemas/PendingGame', active: '#/components/schemas/Game' },
    });
    assert.deepEqual(Object.keys(doc.webhooks).sort(), ['club.invite', 'friend.accept', 'friend.request', 'game.finished', 'game.move', 'game.started', 'tournament.started', 'webhook.test'].map((k) => (k === 'friend.accept' ? 'friend.accepted' : k)).sort());
  });

  it('states the request rules in the schemas a client validates with', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json');
    const body = (path: string, method = 'post') => doc.paths[path][method].requestBody.content['application/json'].schema;
    const signup = body('/auth/signup').properties;
    assert.equal(signup.email.format, 'email');
    assert.deepEqual([signup.password.minLength, signup.username.minLength, signup.username.maxLength, signup.username.pattern], [8, 3, 20, '^[A-Za-z0-9_]+$']);
    assert.ok(new RegExp(signup.password.pattern, 'u').test('abcdefg1') && !new RegExp(signup.password.pattern, 'u').test('abcdefgh'));
    const me = body('/users/me', 'patch').properties;
    assert.ok(JSON.stringify(me.country).includes('[A-Za-z]{2}'));
    assert.ok(JSON.stringify(me.avatar_url).includes('"format":"uri"'));
    assert.equal(body('/webhooks').properties.url.format, 'uri');
    assert.equal(body('/clubs').properties.name.pattern, '^[A-Za-z0-9 _-]+$');
    assert.equal(body('/tournaments').properties.name.minLength, 3);
  });

  it('gives every route examples of its request body and its answer, which its own schemas accept', async () => {
    const { service } = await testService();
    for (const r of buildRoutes(service.services).filter((r) => !r.hidden)) {
      const name = `${r.method.toUpperCase()} ${r.path}`;
      const examples = examplesOf(r);
      assert.ok(examples, `${name} has no entry in src/http/openapiExamples.ts`);
      if (r.body) {
        assert.ok(examples.request && Object.keys(examples.request).length, `${name}: a request example`);
        for (const [label, { value }] of Object.entries(examples.request)) {
          const parsed = r.body.safeParse(value);
          assert.ok(parsed.success, `${name} request "${label}": ${JSON.stringify(parsed.error?.issues)}`);
        }
      }
      if (r.response) {
        assert.notEqual(examples.response, undefined, `${name}: an answer example`);
        const parsed = r.response.safeParse(examples.response);
        assert.ok(parsed.success, `${name} answer: ${JSON.stringify(parsed.error?.issues)}`);
      }
      if (r.envelope === 'raw') assert.equal(typeof examples.response, 'string', `${name}: the raw answer's text`);
    }
  });

  it('puts the examples in the document, each accepted by its schema, with no key its schema lacks', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json');
    const conformance = new Conformance(doc);
    const response = (r: any) => (r.$ref ? doc.components.responses[r.$ref.split('/').pop()] : r);
    let checked = 0;
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const media = [op.requestBody?.content?.['application/json'], ...Object.values<any>(op.responses ?? {}).map((r) => response(r).content?.['application/json'])];
        for (const [i, m] of media.entries()) {
          if (!m) continue;
          const values = [...(m.example !== undefined ? [m.example] : []), ...Object.values<any>(m.examples ?? {}).map((e) => e.value)];
          for (const value of values) {
            assert.deepEqual(shapeProblems(m.schema, value, doc), [], `${method} ${path}`);
            assert.deepEqual(conformance.validate(`${method} ${path} example ${i}`, m.schema, value), [], `${method} ${path}: the example fails its schema`);
            checked++;
          }
        }
      }
    }
    assert.ok(checked > 100, `${checked} examples checked`);
    const create = doc.paths['/games'].post;
    assert.deepEqual(Object.keys(create.requestBody.content['application/json'].examples), ['challenge', 'matchmaking', 'correspondence']);
    assert.equal(create.responses['201'].content['application/json'].example.data.status, 'pending');
    assert.equal(create.responses['409'].content['application/json'].examples.PLAYER_BUSY.value.error.code, 'PLAYER_BUSY');
  });

  it('documents the announced OAuth login as 501 NOT_IMPLEMENTED, with no success answer', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json');
    const oauth = doc.paths['/auth/oauth/google'].get;
    assert.ok(oauth.responses['501']);
    assert.equal(oauth.responses['501'].content['application/json'].examples.NOT_IMPLEMENTED.value.error.code, 'NOT_IMPLEMENTED');
    assert.deepEqual(Object.keys(oauth.responses).filter((s) => s < '400'), []);
    assert.match(oauth.description, /501/);
    const res = await api('GET', '/v1/auth/oauth/google');
    assert.equal(res.status, 501);
    assert.equal(res.body.error.code, 'NOT_IMPLEMENTED');
  });

  it('describes the room protocol beside the REST operations: joining, game room messages and state, lobby, seek pools', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json');
    const rooms = doc.paths['/matchmake/{method}/{room}'].post;
    assert.equal(rooms.servers, undefined, 'under the document server (/v1), where it is served too');
    assert.deepEqual(rooms.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/SeatReservation' });
    const seat = await api('POST', '/v1/matchmake/joinOrCreate/lobby', { body: {} });
    assert.equal(seat.status, 200, seat.text);
    assert.equal(seat.body.name, 'lobby');
    for (const word of ['joinById', '`move` | `{from, to', 'move:ok', 'answer_draw', 'turnStartedAt', 'game_end', '### Lobby', 'seek_pool', 'paired', '4503']) {
      assert.ok(rooms.description.includes(word), word);
    }
    for (const word of ['game stream', 'realtime channel', 'rooms', '600+0 is rapid']) assert.ok(doc.info.description.includes(word), word);
  });

  it('takes the socket protocols from docs/protocol.md, its links made text', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json');
    const protocol = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8');
    const closeCodes = protocol.split('\n').filter((line) => /^\| \d{4} \|/.test(line)).join('\n');
    assert.ok(closeCodes && doc['x-websockets'][0].description.includes(closeCodes), 'the close codes table');
    assert.ok(doc.paths['/matchmake/{method}/{room}'].post.description.includes('#### Leaving, aborting and claiming'));
    assert.doesNotMatch(JSON.stringify(doc), /\]\([^)\s]+\)/, 'a link of the docs leads nowhere from /docs');
  });
});

/**
 * Where an example and its JSON Schema disagree on keys: a key the schema does not have, or one
 * it requires that the example lacks (zod's parse, above, ignores unknown keys).
 */
function shapeProblems(schema: any, value: unknown, doc: any, at = '$'): string[] {
  if (schema?.$ref) return shapeProblems(doc.components.schemas[schema.$ref.split('/').pop()], value, doc, at);
  if (!schema || value === null || value === undefined) return [];
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    const results = branches.map((b: any) => shapeProblems(b, value, doc, at));
    return results.reduce((best: string[], r: string[]) => (r.length < best.length ? r : best));
  }
  if (Array.isArray(value)) return schema.items ? value.flatMap((v, i) => shapeProblems(schema.items, v, doc, `${at}[${i}]`)) : [];
  if (typeof value !== 'object' || !schema.properties) return [];
  const problems: string[] = [];
  for (const key of Object.keys(value)) {
    if (!(key in schema.properties) && !schema.additionalProperties) problems.push(`${at}.${key} is not in the schema`);
  }
  for (const key of schema.required ?? []) if (!(key in (value as object))) problems.push(`${at}.${key} is required`);
  for (const [key, sub] of Object.entries<any>(schema.properties)) problems.push(...shapeProblems(sub, (value as any)[key], doc, `${at}.${key}`));
  return problems;
}
