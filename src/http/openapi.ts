import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi, getRefId } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { COLORS, RESULTS, TERMINATIONS } from '../domain/game.ts';
import { ERROR_STATUS } from '../errors.ts';
import { GameDetail, MoveView, RatingChanges } from '../services/gameViews.ts';
import { ERROR_EXAMPLES, EXAMPLES, type RouteExamples } from './openapiExamples.ts';
import { componentDefinitions } from './openapiNames.ts';
import { readProtocolDoc } from './protocolDoc.ts';
import type { Route, ScopeDecision } from './route.ts';

extendZodWithOpenApi(z);

const ErrorEnvelope = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.record(z.string(), z.array(z.string())).optional().meta({ description: 'by field: what is wrong with it' }),
      retryAfter: z.number().int().optional().meta({ description: 'seconds to wait (429; also the Retry-After header)' }),
    }),
  })
  .openapi('ErrorEnvelope', { description: 'Every failed answer: the code (stable, listed per operation), a message for people, and details by field' });

/** DESIGN 2.1: the key is per user, so it applies to authenticated POSTs (anonymous ones ignore it). */
const IdempotencyHeaders = z.object({
  'Idempotency-Key': z.string().min(1).max(255).optional().meta({
    description:
      'A retry with the same key by the same user within 24 h gets the first answer again (with `Idempotent-Replayed: true`) ' +
      'instead of acting twice; the same key with another request → 409 IDEMPOTENCY_KEY_REUSED. 5xx and 429 answers are not kept.',
  }),
});
const takesIdempotencyKey = (r: Route) => r.method === 'post' && r.auth !== 'none';
/** Express's JSON parser reads the body of every request that has one: past 64 KB it is 413, whatever the route. */
const takesBody = (r: Route) => r.method === 'post' || r.method === 'put' || r.method === 'patch';

const toOpenApiPath = (p: string) => p.replace(/:(\w+)/g, '{$1}');

const Pagination = z
  .object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    total_pages: z.number().int(),
    totalPages: z.number().int().meta({ description: 'the same as total_pages' }),
    hasNext: z.boolean(),
    hasPrev: z.boolean(),
  })
  .openapi('Pagination');

/** The response headers the service sends, by name (components.headers). */
const HEADERS: Record<string, { description: string; schema: object; required?: true }> = {
  'Retry-After': { description: 'Seconds to wait before asking again', schema: { type: 'integer', minimum: 0 }, required: true },
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
  'WWW-Authenticate': { description: '`Bearer`: the access token is missing, malformed, expired or revoked', schema: { type: 'string' }, required: true },
  'X-RateLimit-Limit': { description: "Points of the operation's limit per window (absent when RATE_LIMIT_ENABLED=false)", schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Points left in the current window', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'Seconds until the window restarts', schema: { type: 'integer' } },
};
const headerName = (h: string) => h.replaceAll('-', '');
type Header = { $ref: string } | { description: string; schema: object };
const headerRef = (h: string) => ({ $ref: `#/components/headers/${headerName(h)}` });
/** A 401 that is UNAUTHORIZED or another code (INVALID_CREDENTIALS): the header comes with UNAUTHORIZED only. */
const WITH_UNAUTHORIZED = { description: '`Bearer`, with UNAUTHORIZED (not with the other codes of this status)', schema: { type: 'string' } };
/** A 503 says when to retry where it knows (a game between nodes does not). */
const MAYBE_RETRY_AFTER = { description: 'Seconds to wait, when known', schema: { type: 'integer', minimum: 0 } };
/** Headers of a response: the rate-limit ones (every answer a route's limit saw), and `extra`. */
function headersOf(extra: string[] = []): Record<string, Header> {
  const names = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', ...extra];
  return Object.fromEntries(names.map((h) => [h, headerRef(h)]));
}

/** The route's examples (src/http/openapiExamples.ts), by "METHOD path". */
export const examplesOf = (r: Route): RouteExamples | undefined => EXAMPLES[`${r.method.toUpperCase()} ${r.path}`];

/** Further media types of the success, chosen by Accept (Route.alternatives). */
const alternativesOf = (r: Route) => Object.fromEntries(Object.entries(r.alternatives ?? {}).map(([type, schema]) => [type, { schema }]));

/** `data` of a route that does not describe it: anything, but there (z.json() recurses for ever in the generator). */
const ANY_DATA = z.union([z.looseObject({}), z.array(z.unknown()), z.string(), z.number(), z.boolean(), z.null()]).meta({ description: 'not described' });

/** The success body as the route really sends it (see Route.envelope); `data` is always there. */
function successContent(r: Route, response: z.ZodType | undefined, example: unknown): Record<string, { schema: z.ZodType; example?: unknown }> {
  const data = response ?? ANY_DATA;
  const has = example !== undefined;
  switch (r.envelope ?? 'data') {
    case 'raw':
      return { [r.contentType ?? 'text/plain']: { schema: z.string(), ...(has ? { example } : {}) } };
    case 'message':
      return {
        'application/json': {
          schema: z.object({ success: z.literal(true), message: z.string(), ...(response ? { data } : {}) }),
          example: { success: true, ...(has ? { data: example } : {}), message: 'Done.' },
        },
      };
    case 'list': {
      const n = Array.isArray(example) ? example.length : 0;
      const pagination = { page: 1, limit: 20, total: n, total_pages: n ? 1 : 0, totalPages: n ? 1 : 0, hasNext: false, hasPrev: false };
      return { 'application/json': { schema: z.object({ success: z.literal(true), data, pagination: Pagination }), ...(has ? { example: { success: true, data: example, pagination } } : {}) } };
    }
    default:
      return { 'application/json': { schema: z.object({ success: z.literal(true), data }), ...(has ? { example: { success: true, data: example } } : {}) } };
  }
}

/** A path parameter that is an id: a UUID in either case; a malformed one names nothing (404). */
const IdParam = z.uuid().meta({ description: 'a UUID, in either case; a malformed one is an unknown id (404)' });

/** An error envelope as the service sends it for `code`. */
function errorExample(code: string): object {
  const e = ERROR_EXAMPLES[code];
  const message = e?.message ?? code.charAt(0) + code.slice(1).toLowerCase().replaceAll('_', ' ');
  return { success: false, error: { code, message, ...(e?.details ? { details: e.details } : {}), ...(e?.retryAfter ? { retryAfter: e.retryAfter } : {}) } };
}

type ResponseObject = { description: string; headers?: Record<string, Header>; content?: object };

/**
 * The refusals every operation may give, alone at their status: one response each under
 * components.responses (by name), referenced, instead of a copy per operation.
 */
const SHARED_REFUSALS: Record<string, string> = {
  VALIDATION_ERROR: 'ValidationError',
  UNAUTHORIZED: 'Unauthorized',
  RATE_LIMIT_EXCEEDED: 'RateLimited',
  PAYLOAD_TOO_LARGE: 'PayloadTooLarge',
};

/**
 * The error answers of `codes`, one response per status with an example per code. `limited`: the
 * route's rate limit saw the request, so its headers come along (not at 413: the body parser
 * answers that first, nor on /matchmake, which the rooms limit).
 */
function errorResponses(codes: Iterable<string>, limited: boolean): Record<string, ResponseObject | { $ref: string }> {
  const byStatus = new Map<number, string[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code as keyof typeof ERROR_STATUS] ?? 400;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, ResponseObject | { $ref: string }> = {};
  for (const [status, sharing] of byStatus) {
    const shared = sharing.length === 1 && (limited || status === 413) ? SHARED_REFUSALS[sharing[0]] : undefined;
    responses[String(status)] = shared ? { $ref: `#/components/responses/${shared}` } : errorResponse(status, sharing, limited, ErrorEnvelope);
  }
  return responses;
}

/** `schema`: the envelope as zod (in a path), or its `$ref` (in a raw component, which is not converted). */
function errorResponse<S>(status: number, codes: string[], limited: boolean, schema: S) {
  const h: Record<string, Header> = limited && status !== 413 ? headersOf() : {};
  // A route's limit always says when (429); the sockets' caps, the rooms and a 503 say it when they know.
  if (status === 429) h['Retry-After'] = limited ? headerRef('Retry-After') : MAYBE_RETRY_AFTER;
  if (status === 503) h['Retry-After'] = MAYBE_RETRY_AFTER;
  // Sent with UNAUTHORIZED (a token missing or refused), not with another 401 (a wrong password).
  if (codes.includes('UNAUTHORIZED')) h['WWW-Authenticate'] = codes.length === 1 ? headerRef('WWW-Authenticate') : WITH_UNAUTHORIZED;
  const examples = Object.fromEntries(codes.map((code) => [code, { summary: code, value: errorExample(code) }]));
  return {
    description: codes.join(', '),
    ...(Object.keys(h).length ? { headers: h } : {}),
    content: { 'application/json': { schema, examples } },
  };
}

/**
 * The OpenAPI 3.1 document, generated from the very routes (and zod schemas) that serve and
 * validate requests, so the two cannot drift. Shared shapes are components (src/http/openapiNames.ts),
 * every operation has an operationId, the WebSockets are under `x-websockets` (OpenAPI has no
 * WebSocket operations) and in the description, and webhook payloads under `webhooks`.
 */
export function buildOpenApi(routes: Route[], serverUrl: string): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  registry.registerComponent('securitySchemes', 'personalToken', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'cst_',
    description:
      'A personal access token (`POST /account/tokens`): `Authorization: Bearer cst_…`. An operation lists the scope it ' +
      'needs (none: public data); a token without it gets 403 `MISSING_SCOPE` with `details.scope`.',
  });
  for (const [name, header] of Object.entries(HEADERS)) registry.registerComponent('headers', headerName(name), header);
  for (const [code, name] of Object.entries(SHARED_REFUSALS)) {
    const status = ERROR_STATUS[code as keyof typeof ERROR_STATUS];
    registry.registerComponent('responses', name, errorResponse(status, [code], status !== 413, { $ref: '#/components/schemas/ErrorEnvelope' }));
  }
  const seen = new Set<string>();
  for (const r of routes) {
    if (r.hidden) continue;
    const { operationId } = r;
    if (seen.has(operationId)) throw new Error(`operationId ${operationId} is used twice`);
    seen.add(operationId);
    const path = toOpenApiPath(r.path);
    const params = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const responses: Record<string, ResponseObject | { $ref: string }> = {};
    const status = r.status ?? 200;
    const replayable = takesIdempotencyKey(r) ? ['Idempotent-Replayed'] : [];
    // A route that only ever fails (the announced OAuth login) documents no success.
    if (status < 400) {
      responses[String(status)] =
        status === 204
          ? { description: 'No content', headers: headersOf(replayable) }
          : { description: 'Success', headers: headersOf(replayable), content: { ...successContent(r, r.response, examplesOf(r)?.response), ...alternativesOf(r) } };
    }
    for (const [s, also] of Object.entries(r.also ?? {})) {
      responses[s] = { description: also.description, headers: headersOf([...replayable, ...(also.headers ?? [])]), content: successContent(r, also.response, undefined) };
    }
    const codes = new Set([...(r.errors ?? []), ...Object.values(r.ids ?? {}), 'VALIDATION_ERROR']);
    if (r.auth === 'required') codes.add('UNAUTHORIZED');
    const { scope } = r;
    if (scope === 'session') codes.add('SESSION_REQUIRED');
    else if (scope && scope !== 'public') codes.add('MISSING_SCOPE');
    if (takesIdempotencyKey(r)) codes.add('IDEMPOTENCY_KEY_REUSED');
    if (takesBody(r)) codes.add('PAYLOAD_TOO_LARGE');
    codes.add('RATE_LIMIT_EXCEEDED');
    Object.assign(responses, errorResponses(codes, true));
    registry.registerPath({
      method: r.method,
      path,
      operationId,
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: r.tags,
      security: security(r.auth, scope),
      request: {
        params: params.length ? z.object(Object.fromEntries(params.map((p) => [p, r.ids?.[p] ? IdParam : z.string()]))) : undefined,
        query: r.query instanceof z.ZodObject ? r.query : undefined,
        headers: takesIdempotencyKey(r) ? IdempotencyHeaders : undefined,
        body: r.body ? { required: true, content: { 'application/json': { schema: r.body, examples: examplesOf(r)?.request } } } : undefined,
      },
      responses,
    });
  }
  const prose = protocolProse();
  registerStreams(registry, prose);
  registerMatchmake(registry, prose.rooms);
  registerWebhooks(registry);
  const components = [...componentDefinitions(), { type: 'schema' as const, schema: ErrorEnvelope }, { type: 'schema' as const, schema: Pagination }];
  const doc = new OpenApiGeneratorV31([...components, ...registry.definitions]).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Chess service',
      version: '1.0.0',
      description: `${API_DESCRIPTION}\n\n## Game stream (WebSocket)\n\n${prose.stream}\n\n## Realtime channel (WebSocket)\n\n${prose.realtime}`,
    },
    servers: [{ url: `${serverUrl}/v1` }],
  }) as unknown as OpenApiDocument;
  for (const r of routes) if (!r.hidden && r.discriminator) addDiscriminator(doc, r);
  doc['x-websockets'] = websockets(serverUrl, prose);
  return doc;
}

/** Who may call: a session's access token, and a personal token with the scope it lists (none: public data). */
function security(auth: Route['auth'], scope: ScopeDecision | undefined): Record<string, string[]>[] {
  if (auth === 'none') return [];
  const session: Record<string, string[]> = { bearer: [] };
  const personal: Record<string, string[]> = { personalToken: scope === 'public' || !scope ? [] : [scope] };
  const tokens = scope === 'session' ? [session] : [session, personal];
  return auth === 'optional' ? [{}, ...tokens] : tokens;
}

type OpenApiDocument = { paths: Record<string, Record<string, any>>; [key: string]: unknown };

/**
 * A union answer with a discriminator (POST /games 201: a pending game or the game, active):
 * zod-to-openapi writes a union as `anyOf` without one, so the success schemas' `data` becomes
 * `oneOf` with `discriminator.mapping` to the named shapes.
 */
function addDiscriminator(doc: OpenApiDocument, r: Route): void {
  const { property, mapping } = r.discriminator!;
  const refs = Object.fromEntries(Object.entries(mapping).map(([value, schema]) => [value, `#/components/schemas/${getRefId(schema)}`]));
  const op = doc.paths[toOpenApiPath(r.path)][r.method];
  for (const [status, response] of Object.entries<any>(op.responses)) {
    if (!status.startsWith('2')) continue;
    const data = response.content?.['application/json']?.schema?.properties?.data;
    if (!data?.anyOf) continue;
    data.oneOf = data.anyOf;
    delete data.anyOf;
    data.discriminator = { propertyName: property, mapping: refs };
  }
}

const API_DESCRIPTION = `REST API of the realtime chess service. Also served under \`/api\` and \`/api/v1\`.

Every answer is JSON in an envelope: \`{success: true, data}\` (lists add \`pagination\`), or
\`{success: false, error: {code, message, details?}}\`. Authenticate with \`Authorization: Bearer <access_token>\` from
\`POST /auth/signup\` or \`POST /auth/login\` (1 hour; renew with \`POST /auth/refresh\`). Clock values are seconds.
A game's \`time_control\` is the category of \`initial_time + 40 × increment\` seconds: under 180 bullet, under 480 blitz,
under 1500 rapid, else classical (so 600+0 is rapid, 180+2 is blitz).

**Realtime**, beside the REST operations (see the *Realtime* and *Rooms* sections below):
- the **game stream**, a WebSocket per game (\`/v1/games/{id}/stream\`): \`state\`, then every \`move\`, \`time_update\`,
  \`draw_offer\`, \`takeback_offer\`, \`takeback\` and \`game_end\` in order; for spectators, bots and any client without an SDK;
- the **realtime channel**, one WebSocket for many subscriptions (\`/v1/realtime\`): \`game:<id>\`, \`user:<your id>\`
  (challenges, pairings, friends, clubs), \`lobby\` and \`tv\` (the featured game);
- the same over **HTTP** for clients without WebSockets (NDJSON, one message per line): the game stream's URL with
  \`Accept: application/x-ndjson\`, \`GET /stream/events\` (your user channel) and \`GET /tv/feed\` (the TV);
- the **rooms** (Colyseus) players play in: a game's room takes moves, draw offers, takebacks and resignations over the socket and
  keeps every player's state in sync; the \`lobby\` room lists open seeks live; a \`seek_pool\` room pairs seekers.

The web app at \`/\` is built on exactly these.`;

/**
 * The socket protocols as docs/protocol.md tells them (their one text), by section: the rooms for
 * /matchmake, each WebSocket for x-websockets and the description, the NDJSON forms for their GETs.
 */
function protocolProse() {
  const section = readProtocolDoc();
  const overHttp = section('Realtime over HTTP (NDJSON streams)');
  return {
    rooms: section('Room protocol (players over Colyseus)', 'whole'),
    stream: [
      section('Realtime over plain WebSocket (spectators, bots, REST clients)'),
      section('The game stream'),
      section('Pings, limits and closing'),
      `**Close codes** (rooms, stream, realtime)\n\n${section('Close codes')}`,
    ].join('\n\n'),
    realtime: `${section('The realtime channel')}\n\nPings, limits and close codes: as for the game stream.`,
    streamOverHttp: `${overHttp}\n\n${section('The game stream over HTTP')}`,
    events: `${overHttp}\n\n${section('The user channel over HTTP')}`,
    tv: `${overHttp}\n\n${section('The TV feed over HTTP')}`,
  };
}
type ProtocolProse = ReturnType<typeof protocolProse>;

const NDJSON_GAME_EXAMPLE = [
  '{"type":"state","game":{"id":"…","status":"active","fen":"…"},"v":0,"ts":1767268800000}',
  '{"type":"move","move":{"san":"e4","ply":1,"fen":"…","move_count":1,"current_turn":"black"},"times":{"white":300,"black":300},"v":1,"ts":1767268801000}',
  '{"type":"time_update","times":{"white":300,"black":300},"v":1,"ts":1767268801000}',
  '',
  '{"type":"game_end","status":"finished","abort_reason":null,"result":{"result":"1-0","winner":"white","termination":"resignation","rating_changes":{"white":8,"black":-8}},"v":2,"ts":1767268809000}',
].join('\n');

const NDJSON_EVENTS_EXAMPLE = [
  '{"channel":"user:…","type":"challenge_received","game_id":"…","from":{"id":"…","username":"magnus"},"ts":1767268800000}',
  '',
  '{"channel":"user:…","type":"game_started","game_id":"…","ts":1767268805000}',
].join('\n');

const NDJSON_TV_EXAMPLE = [
  '{"type":"featured","game_id":"…","players":{"white":{"id":"…","username":"magnus","rating":2310},"black":{"id":"…","username":"hikaru","rating":2290}},"orientation":"white","fen":"…","last_move":"e2e4","ts":1767268800000}',
  '{"type":"fen","game_id":"…","fen":"…","last_move":"e7e5","wc":297,"bc":300,"ts":1767268801000}',
  '',
].join('\n');

/**
 * The HTTP forms of the two streams (NDJSON, src/realtime): real GETs a client may call, so they
 * are operations; their WebSocket forms are in `x-websockets`. Refusals come before the stream as
 * the error envelope (no rate-limit headers: the sockets' caps count them, not a route's limit).
 */
function registerStreams(registry: OpenAPIRegistry, prose: ProtocolProse): void {
  registry.registerPath({
    method: 'get',
    path: '/games/{id}/stream',
    operationId: 'streamGame',
    summary: 'Game stream over HTTP (NDJSON, with Accept: application/x-ndjson): state, then every event of the game in order',
    description: `${prose.streamOverHttp}\n\nThe messages are the game stream's: its WebSocket form (the same URL, upgraded) is under \`x-websockets\` (gameStream) and in the description.`,
    tags: ['Realtime'],
    security: [{}, { bearer: [] }],
    request: {
      params: z.object({ id: z.string() }),
      query: z.object({
        token: z.string().optional().meta({ description: 'An access token (or the Authorization header); optional' }),
        since: z.number().int().min(0).optional().meta({ description: 'The last event number seen: resume after it' }),
      }),
      headers: z.object({ Accept: z.literal('application/x-ndjson').meta({ description: 'required: without it (and without an upgrade) the URL is 404 NOT_FOUND' }) }),
    },
    responses: {
      200: { description: 'The messages, one JSON object per line, until game_end', content: { 'application/x-ndjson': { schema: z.string(), example: NDJSON_GAME_EXAMPLE } } },
      ...errorResponses(['VALIDATION_ERROR', 'UNAUTHORIZED', 'GAME_NOT_FOUND', 'NOT_FOUND', 'RATE_LIMIT_EXCEEDED'], false),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/stream/events',
    operationId: 'streamEvents',
    summary: 'Your user channel over HTTP (NDJSON): challenges, games started, rematch offers, friends and clubs',
    description: prose.events,
    tags: ['Realtime'],
    security: [{ bearer: [] }, { personalToken: ['games:read'] }],
    request: {
      query: z.object({ token: z.string().optional().meta({ description: 'An access token, when the Authorization header cannot be set' }) }),
    },
    responses: {
      200: { description: 'The events, one JSON object per line, until the client hangs up', content: { 'application/x-ndjson': { schema: z.string(), example: NDJSON_EVENTS_EXAMPLE } } },
      ...errorResponses(['UNAUTHORIZED', 'MISSING_SCOPE', 'RATE_LIMIT_EXCEEDED'], false),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/tv/feed',
    operationId: 'streamTv',
    summary: 'The TV over HTTP (NDJSON): featured, then fen after each move of the featured game, featured again when it changes',
    description: `${prose.tv}\n\nThe messages are the realtime channel \`tv\`'s, without \`channel\`.`,
    tags: ['Realtime'],
    security: [],
    responses: {
      200: { description: 'The messages, one JSON object per line, until the client hangs up', content: { 'application/x-ndjson': { schema: z.string(), example: NDJSON_TV_EXAMPLE } } },
      ...errorResponses(['RATE_LIMIT_EXCEEDED'], false),
    },
  });
}

/** What /matchmake answers: a seat the Colyseus SDK opens the room's WebSocket with. */
const SeatReservation = z
  .object({
    name: z.string().meta({ description: 'the room type: game, lobby or seek_pool' }),
    sessionId: z.string(),
    roomId: z.string().meta({ description: "a game's room id is the game's id" }),
    processId: z.string().optional().meta({ description: 'the node that hosts the room' }),
    publicAddress: z.string().optional(),
    reconnectionToken: z.string().optional().meta({ description: 'reconnect only' }),
    devMode: z.boolean().optional(),
  })
  .openapi('SeatReservation');

/**
 * The Colyseus matchmaking route: served at the root (where the SDK calls it) and, identically,
 * under /v1, so the document's one server holds it too.
 */
function registerMatchmake(registry: OpenAPIRegistry, rooms: string): void {
  const codes = ['VALIDATION_ERROR', 'UNAUTHORIZED', 'MISSING_SCOPE', 'NOT_FOUND', 'PLAYER_BUSY', 'PAYLOAD_TOO_LARGE', 'RATE_LIMIT_EXCEEDED', 'SERVICE_UNAVAILABLE'];
  registry.registerPath({
    method: 'post',
    path: '/matchmake/{method}/{room}',
    operationId: 'matchmake',
    summary: 'Rooms (Colyseus): join a game as a player or spectator, the lobby, or a seek pool',
    description: rooms,
    tags: ['Rooms'],
    security: [],
    request: {
      params: z.object({
        method: z.enum(['joinById', 'reconnect', 'joinOrCreate']),
        room: z.string().meta({ description: 'a game id (joinById), a room id (reconnect), or lobby / seek_pool (joinOrCreate)' }),
      }),
      body: {
        content: {
          'application/json': {
            schema: z
              .object({
                token: z.string().optional().meta({ description: 'an access token: a player (joinById), the seeker (seek_pool), your challenges (lobby)' }),
                reconnectionToken: z.string().optional().meta({ description: 'reconnect only' }),
              })
              .catchall(z.unknown()),
            examples: {
              play: { summary: 'Join a game as its player', value: { token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9…' } },
              watch: { summary: 'Watch it (no token)', value: {} },
              seek: { summary: 'Seek a 5+3 rated blitz game (joinOrCreate/seek_pool)', value: { time_control: 'blitz', initial_time: 300, increment: 3, rated: true, color: 'random', token: 'eyJhbGciOi…' } },
            },
          },
        },
      },
    },
    responses: {
      200: {
        description: 'A seat reservation for the SDK: it opens the room’s WebSocket with it',
        content: {
          'application/json': {
            schema: SeatReservation,
            example: { name: 'game', sessionId: 'kY3nB2xq', roomId: '5f0c6c1e-9f7e-4d3b-9d6a-0c1b2a3e4f50', processId: 'x1Yz2Q' },
          },
        },
      },
      ...errorResponses(codes, false),
    },
  });
}

// ---- webhooks -----------------------------------------------------------------------------

const Who = z.object({ id: z.uuid(), username: z.string() });
/** What each event's `data` carries (src/services/webhooks.ts and the areas that emit). */
const WEBHOOK_PAYLOADS: Record<string, { summary: string; data: z.ZodType }> = {
  'game.started': { summary: 'A game of yours started', data: z.object({ game: GameDetail }) },
  'game.move': {
    summary: 'A move in a game of yours, in order (after a takeback the freed plies come again)',
    data: z.object({ game_id: z.uuid(), move: MoveView, move_count: z.number().int(), fen: z.string(), times: z.object({ white: z.number(), black: z.number() }) }),
  },
  'game.finished': {
    summary: 'A game of yours ended',
    data: z.object({
      game_id: z.uuid(),
      result: z.enum(RESULTS).nullable(),
      winner: z.enum(COLORS).nullable(),
      termination: z.enum(TERMINATIONS).nullable(),
      rating_changes: RatingChanges,
    }),
  },
  'friend.request': { summary: 'Someone asked you to be friends', data: z.object({ from: Who }) },
  'friend.accepted': { summary: 'Someone accepted your friend request', data: z.object({ user: Who }) },
  'club.invite': { summary: 'A club owner invited you', data: z.object({ club: z.object({ id: z.uuid(), name: z.string() }), invited_by: Who }) },
  'tournament.started': { summary: 'An arena you joined started', data: z.object({ tournament: z.object({ id: z.uuid(), name: z.string(), starts_at: z.string() }) }) },
  'webhook.test': { summary: 'POST /webhooks/{id}/test: sent whatever the endpoint subscribes to', data: z.object({ webhook_id: z.uuid(), message: z.string() }) },
};

const WebhookHeaders = z.object({
  'webhook-id': z.string().meta({ description: '`msg_<uuid>`, the same on every attempt: dedupe on it' }),
  'webhook-timestamp': z.string().meta({ description: 'Unix seconds of this attempt' }),
  'webhook-signature': z.string().meta({ description: '`v1,<base64 HMAC-SHA256>` (Standard Webhooks)' }),
});

/** The payloads POSTed to a registered endpoint, under the document's `webhooks` (OpenAPI 3.1). */
function registerWebhooks(registry: OpenAPIRegistry): void {
  for (const [event, { summary, data }] of Object.entries(WEBHOOK_PAYLOADS)) {
    const name = `Webhook${event.split(/[._]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}`;
    const payload = z
      .object({ type: z.literal(event), timestamp: z.string().meta({ format: 'date-time' }), data })
      .openapi(name);
    registry.registerWebhook({
      method: 'post',
      path: event,
      operationId: `on${name.slice('Webhook'.length)}`,
      summary,
      description: 'Signed by the Standard Webhooks scheme; a 2xx within WEBHOOK_TIMEOUT_SECONDS is delivered, else retried (see docs/api.md, Webhooks).',
      tags: ['Webhooks'],
      // The receiver checks the signature (webhook-signature), not a bearer token.
      security: [],
      request: { headers: WebhookHeaders, body: { required: true, content: { 'application/json': { schema: payload } } } },
      responses: { 200: { description: 'Any 2xx: delivered' }, 410: { description: 'Gone: the endpoint is disabled at once' } },
    });
  }
}

// ---- WebSockets ---------------------------------------------------------------------------

/**
 * The two WebSockets, out of `paths` (a generated client would make functions of them that
 * answer 404): `x-websockets`, one entry per socket, and sections of the description for people.
 */
function websockets(serverUrl: string, prose: ProtocolProse): object[] {
  const ws = serverUrl.replace(/^http/, 'ws');
  return [
    {
      name: 'gameStream',
      url: `${ws}/v1/games/{id}/stream`,
      summary: 'Game stream: state, then every event of the game in order',
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
        { name: 'token', in: 'query', schema: { type: 'string' }, description: 'An access token (or the Authorization header); optional' },
        { name: 'since', in: 'query', schema: { type: 'integer', minimum: 0 }, description: 'The last event number seen: resume after it' },
      ],
      description: prose.stream,
    },
    {
      name: 'realtime',
      url: `${ws}/v1/realtime`,
      summary: 'Realtime channel: subscribe to games, your user channel, tournaments and the lobby',
      parameters: [],
      description: prose.realtime,
    },
  ];
}
