import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ERROR_STATUS } from '../errors.ts';
import { ERROR_EXAMPLES, EXAMPLES, type RouteExamples } from './openapiExamples.ts';
import type { Route } from './route.ts';
import { scopeDecision, type ScopeDecision } from './scopes.ts';

extendZodWithOpenApi(z);

const ErrorEnvelope = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.array(z.string())).optional().meta({ description: 'by field: what is wrong with it' }),
    retryAfter: z.number().int().optional().meta({ description: 'seconds to wait (429; also the Retry-After header)' }),
  }),
});

/** DESIGN 2.1: the key is per user, so it applies to authenticated POSTs (anonymous ones ignore it). */
const IdempotencyHeaders = z.object({
  'Idempotency-Key': z.string().min(1).max(255).optional().meta({
    description:
      'A retry with the same key by the same user within 24 h gets the first answer again (with `Idempotent-Replayed: true`) ' +
      'instead of acting twice; the same key with another request → 409 IDEMPOTENCY_KEY_REUSED. 5xx and 429 answers are not kept.',
  }),
});
const takesIdempotencyKey = (r: Route) => r.method === 'post' && r.auth !== 'none';

const toOpenApiPath = (p: string) => p.replace(/:(\w+)/g, '{$1}');

const Pagination = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  total_pages: z.number().int(),
  totalPages: z.number().int(),
  hasNext: z.boolean(),
  hasPrev: z.boolean(),
});

/** The route's examples (src/http/openapiExamples.ts), by "METHOD path". */
export const examplesOf = (r: Route): RouteExamples | undefined => EXAMPLES[`${r.method.toUpperCase()} ${r.path}`];

/** The success body as the route really sends it (see Route.envelope), with its example. */
function successContent(r: Route): Record<string, { schema: z.ZodType; example?: unknown }> {
  const data = r.response ?? z.unknown();
  const example = examplesOf(r)?.response;
  const has = example !== undefined;
  switch (r.envelope ?? 'data') {
    case 'raw':
      return { [r.contentType ?? 'text/plain']: { schema: z.string(), ...(has ? { example } : {}) } };
    case 'message':
      return {
        'application/json': {
          schema: z.object({ success: z.literal(true), message: z.string(), ...(r.response ? { data: data.optional() } : {}) }),
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

/**
 * The OpenAPI 3.1 document, generated from the very routes (and zod schemas) that serve and
 * validate requests, so the two cannot drift.
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
  for (const r of routes) {
    if (r.hidden) continue;
    const path = toOpenApiPath(r.path);
    const params = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const responses: Record<string, { description: string; content?: object }> = {};
    const status = r.status ?? 200;
    // A route that only ever fails (the announced OAuth login) documents no success.
    if (status < 400) responses[String(status)] = status === 204 ? { description: 'No content' } : { description: 'Success', content: successContent(r) };
    const codes = new Set([...(r.errors ?? []), ...Object.values(r.ids ?? {}), 'VALIDATION_ERROR']);
    if (r.auth === 'required') codes.add('UNAUTHORIZED');
    const scope = r.auth === 'none' ? undefined : scopeDecision(r);
    if (scope === 'session') codes.add('SESSION_REQUIRED');
    else if (scope && scope !== 'public') codes.add('MISSING_SCOPE');
    if (takesIdempotencyKey(r)) codes.add('IDEMPOTENCY_KEY_REUSED');
    codes.add('RATE_LIMIT_EXCEEDED');
    const errorExamples: Record<string, Record<string, { summary: string; value: object }>> = {};
    for (const code of codes) {
      const s = String(ERROR_STATUS[code as keyof typeof ERROR_STATUS] ?? 400);
      const prev = responses[s]?.description;
      (errorExamples[s] ??= {})[code] = { summary: code, value: errorExample(code) };
      responses[s] = {
        description: prev ? `${prev}, ${code}` : code,
        content: { 'application/json': { schema: ErrorEnvelope, examples: errorExamples[s] } },
      };
    }
    registry.registerPath({
      method: r.method,
      path,
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: r.tags,
      security: security(r.auth, scope),
      request: {
        params: params.length ? z.object(Object.fromEntries(params.map((p) => [p, r.ids?.[p] ? IdParam : z.string()]))) : undefined,
        query: r.query instanceof z.ZodObject ? r.query : undefined,
        headers: takesIdempotencyKey(r) ? IdempotencyHeaders : undefined,
        body: r.body ? { content: { 'application/json': { schema: r.body, examples: examplesOf(r)?.request } } } : undefined,
      },
      responses,
    });
  }
  registerSockets(registry, serverUrl);
  const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Chess service',
      version: '1.0.0',
      description: API_DESCRIPTION,
    },
    servers: [{ url: `${serverUrl}/v1` }],
  });
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
  (challenges, pairings, friends, clubs) and \`lobby\`;
- the same over **HTTP** for clients without WebSockets (NDJSON, one message per line): the game stream's URL with
  \`Accept: application/x-ndjson\`, and \`GET /stream/events\` (your user channel);
- the **rooms** (Colyseus) players play in: a game's room takes moves, draw offers, takebacks and resignations over the socket and
  keeps every player's state in sync; the \`lobby\` room lists open seeks live; a \`seek_pool\` room pairs seekers.

The web app at \`/\` is built on exactly these.`;

const ROOMS_DOC = `Players use the Colyseus SDK (\`@colyseus/sdk\`, \`new Client('ws://host:2567')\`), which calls this route and then opens the
room's WebSocket with the seat it got. Put the access token in the join options (\`{token}\`), never in \`client.auth.token\`
(the SDK would write it into the socket's URL). Allowed: \`joinById/{game id}\` (a player with a token, a spectator without),
\`reconnect/{room id}\` (\`{reconnectionToken}\`, within 60 s of a drop), \`joinOrCreate/lobby\` (token optional) and
\`joinOrCreate/seek_pool\` (\`{time_control, initial_time, increment, rated, color, token}\`). Errors are the REST envelope with
REST statuses plus a top-level \`message: "CODE: text"\`.

**Game room** (room id = game id). Send \`move {from, to, promotion?, lag?, id?}\`, \`resign {id?}\`, \`offer_draw {id?}\`,
\`answer_draw {offer_id, accept, id?}\`, \`abort {id?}\`, \`claim {result: "win"|"draw", id?}\`, \`takeback {id?}\`,
\`answer_takeback {takeback_id, accept, id?}\`; answers \`move:ok {id?, move, game}\` (as REST's), \`resign:ok\`, \`offer_draw:ok\`,
\`answer_draw:ok\`, \`abort:ok\`, \`claim:ok\`, \`takeback:ok {id?, takeback}\`, \`answer_takeback:ok {id?, takeback, game?}\`, or
\`error {id?, code, message, details?}\` with the REST codes. A command's \`id\` makes a resend safe.
State (delta-synced): \`status, fen, turn, moves[] (SAN), lastMove {from, to, san}, white/black {id, username, rating,
connected, remainingMs, claimableAt}, clockRunning, turnStartedAt\` (server Unix ms: count the mover's clock down from it),
\`drawOffer {id, offeredBy, expiresAt}\`, \`result, winner, termination, eventSeq\`, \`takebackOffer {id, offeredBy, plies,
expiresAt}\` (empty when none). At the end a \`game_end {result, winner,
termination, rating_changes, status, abort_reason}\` message. \`opponent_gone {color, claimable_at, v}\` when a player who had
joined has no client left (the opponent may \`claim\` from claimable_at), \`opponent_back {color, v}\` when they return;
\`takeback_offer {takeback, v}\` when a takeback proposal opens or closes, \`takeback {takeback_id, plies, fen, move_count,
current_turn, times, v}\` when one is accepted (the state's moves lose those plies);
after the end, while the room lingers, \`rematch_offer {game_id, offered_by}\`. 100 messages per 20 s per player; close 4503: the game moved
to another node, join it again by id. Chat (any client joined with a token): send \`chat {text, room: "player" | "spectator", id?}\`,
answered \`chat:ok {id?, message}\` or \`error\` (the rules and codes of POST /games/{id}/chat); every chat message of the game
arrives as \`chat {room, message}\`, a player-room one only to the clients that joined with a player's token.

**Lobby room**: state \`seeks\` (a map of open seeks \`{id, userId, username, rating, timeControl, initialTime, increment,
rated, color, createdAt, expiresAt}\`); with a token also \`challenges {challenges: [...]}\` (yours, incoming and outgoing) and
\`game_started {game_id, seek_id?}\`. Clients send nothing.

**Seek pool room**: joining seeks (one pool per time control and mode); \`seeking {seek_id, expires_at}\`, then
\`paired {game_id, reservation}\` (consume the reservation, or join the game by id). Leaving cancels the seek.`;

const SOCKET_CAPS_DOC = `Sockets of the stream and the realtime channel together: at most REALTIME_SOCKETS_PER_ADDRESS (50) open
per client address on a node; past it the upgrade is answered 429 with the error envelope (\`RATE_LIMIT_EXCEEDED\`), no WebSocket.`;

const STREAM_DOC = `A WebSocket (\`ws://…/v1/games/{id}/stream\`, also under /api and /api/v1). Watching is public; a token
(\`?token=\` or \`Authorization: Bearer\`) is optional and, when given, must be valid (a pending game shows only to its players).
Every message is JSON with \`type\`, \`v\` (the game's event number) and \`ts\` (Unix ms):
- \`state {game}\`: the game detail of GET /games/{id}, first (again after a hole the replay buffer could not fill, and when a pending game starts or is abandoned);
- \`move {move: {…Move, ply, fen, move_count, current_turn}, times: {white, black}}\`, each followed by \`time_update {times}\` (seconds);
- \`time_update {times}\` every 5 s while the clocks run (it carries the current v, it does not advance it);
- \`draw_offer {draw_offer}\` when an offer opens or closes;
- \`opponent_gone {color, claimable_at}\` / \`opponent_back {color}\` when a player who had joined the game's room leaves it / returns (not numbered);
- \`rematch_offer {game_id, offered_by}\` when a player asks for a rematch after the end (not numbered);
- \`takeback_offer {takeback: {id, offered_by, plies, status, expires_at}}\` when a takeback proposal opens or closes (declined, expired);
- \`takeback {takeback_id, plies, fen, move_count, current_turn, times}\` when one is accepted: drop the last \`plies\` moves (keep \`move_count\`), the side to move's clock runs;
- \`game_end {status, abort_reason, result: {result, winner, termination, rating_changes}}\`, then the server closes with 1000;
- \`chat {room, message}\`: a spectator-room chat message, and with a player's token the player room's too (live only, never replayed; it carries the current v).
\`?since=v\` (the last v seen) resumes after a reconnect: the events after v from a short buffer, else a fresh state.
The client may send \`{"type":"ping"}\` (answered \`pong\`). Close codes: 1000 game over, 1008 too many refused messages,
1009 frame over 4 KB, 1011 reconnect with ?since, 1012 service restarting, 1013 reading too slowly, 4401 bad token
(after \`error UNAUTHORIZED\`), 4404 unknown game (after \`error GAME_NOT_FOUND\`), 4429 the token's user holds
REALTIME_SOCKETS_PER_USER (20) sockets on this node already (after \`error RATE_LIMIT_EXCEEDED\`).
${SOCKET_CAPS_DOC}

**Over HTTP** (for clients that cannot hold a WebSocket): the same URL asked with \`Accept: application/x-ndjson\` and no
upgrade answers 200 with the same messages, in the same order with the same \`v\`, one JSON object per line of a chunked
body, and an empty line every 7 s as keep-alive; the same token and \`?since=\`. The body ends after \`game_end\`; a body that
ends otherwise (after \`error SERVICE_UNAVAILABLE\` when the service restarts or the game could not be read, or cut off
without its last chunk for a client reading too slowly) means: reconnect with \`?since=\`. Refusals come before the stream as
HTTP errors: 400 \`VALIDATION_ERROR\` (since), 401 \`UNAUTHORIZED\`, 404 \`GAME_NOT_FOUND\`, 429 \`RATE_LIMIT_EXCEEDED\` (an HTTP
stream counts as a socket in both caps). Without that Accept and without an upgrade the URL answers 404 \`NOT_FOUND\`.`;

const EVENTS_DOC = `Your \`user:<your id>\` channel of the realtime WebSocket over HTTP (for clients that cannot hold a WebSocket):
200 with its messages as the realtime socket sends them after \`subscribed\` (each with \`channel\`: \`challenge_received\`,
\`challenge_declined\`, \`challenge_cancelled\`, \`challenge_expired\`, \`game_started\`, \`rematch_offer\`, \`tournament_started\`,
\`tournament_pairing\`, friend and club news), one JSON object per line of a chunked body (\`application/x-ndjson\`, whatever the
Accept header), and an empty line every 7 s as keep-alive. The 200 is the subscription: every event published after it arrives.
The channel keeps no replay buffer, so there is no \`?since=\`: what was missed while disconnected is read back through REST
(\`GET /games?status=pending\` for challenges). When the session ends (logout) the last line is \`error UNAUTHORIZED\`; when the
service restarts, \`error SERVICE_UNAVAILABLE\`; a client reading too slowly is cut off. The token: \`Authorization: Bearer\`
(or \`?token=\`). The stream counts as a socket of your address and of your user (REALTIME_SOCKETS_PER_ADDRESS,
REALTIME_SOCKETS_PER_USER: 429 \`RATE_LIMIT_EXCEEDED\` past them).`;

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

const REALTIME_DOC = `A WebSocket (\`ws://…/v1/realtime\`, also /realtime) carrying many channels. The client sends
\`{"type":"subscribe","channel":…,"token"?:…,"id"?:…}\`, \`{"type":"unsubscribe","channel":…}\` and \`{"type":"ping"}\`; the answers are
\`subscribed {channel}\`, \`unsubscribed {channel}\`, \`pong\` (echoing \`id\`) or \`error {code, message, channel?}\`. Channels:
- \`game:<id>\`: the stream's messages, each with \`channel\` (public; a pending game needs a player's token);
- \`user:<your id>\` (your token): \`challenge_received {game_id, from}\`, \`challenge_declined {game_id, by}\`, \`challenge_cancelled {game_id, by}\`,
  \`challenge_expired {game_id}\`, \`game_started {game_id, seek_id?}\`, \`rematch_offer {game_id, rematch_of, from}\`, \`tournament_started {tournament: {id, name, starts_at}}\`,
  \`tournament_pairing {tournament_id, game_id, color, opponent: {id, username}}\` (the game is active, both seated: join its room);
  when the session ends (logout) \`error UNAUTHORIZED\` and the subscription stops;
- \`tournament:<id>\` (any valid token): \`pairing {game_id, white: {id, username}, black: {id, username}}\`, \`standings {standings
  (the first 100), standings_total}\` after counted games, \`status {status}\` when the arena starts running and when it finishes;
- \`lobby\`: \`seeks {seeks}\` first, then \`seek_added {seek}\` and \`seek_removed {id, reason}\`.
Errors: UNAUTHORIZED (bad token), FORBIDDEN (another user's channel), GAME_NOT_FOUND, TOURNAMENT_NOT_FOUND, VALIDATION_ERROR (malformed message,
unknown channel), RATE_LIMIT_EXCEEDED (60 messages at once, 10 a second after that; or a token of a user who already holds
REALTIME_SOCKETS_PER_USER (20) sockets on this node: a socket counts for a user from its first subscription with their token until it
closes, and the socket stays open for channels without a token). Close codes as for the stream.
${SOCKET_CAPS_DOC}`;

/** The two WebSockets, documented where REST clients look (OpenAPI has no WebSocket operations). */
function registerSockets(registry: OpenAPIRegistry, serverUrl: string): void {
  const switching = { 101: { description: 'Switching Protocols: the WebSocket opens (messages in the description)' } };
  const capped = { description: 'RATE_LIMIT_EXCEEDED: this address holds REALTIME_SOCKETS_PER_ADDRESS sockets already; no WebSocket' };
  registry.registerPath({
    method: 'get',
    path: '/games/{id}/stream',
    summary: 'Game stream (WebSocket): state, then every event of the game in order',
    description: STREAM_DOC,
    tags: ['Realtime'],
    security: [{}, { bearer: [] }],
    request: {
      params: z.object({ id: z.string() }),
      query: z.object({
        token: z.string().optional().meta({ description: 'An access token (or the Authorization header); optional' }),
        since: z.number().int().min(0).optional().meta({ description: 'The last event number seen: resume after it' }),
      }),
    },
    responses: {
      ...switching,
      200: { description: 'With `Accept: application/x-ndjson` and no upgrade: the messages, one JSON object per line', content: { 'application/x-ndjson': { schema: z.string(), example: NDJSON_GAME_EXAMPLE } } },
      400: { description: 'VALIDATION_ERROR: since is no event number (HTTP form)' },
      401: { description: 'UNAUTHORIZED: an invalid token (HTTP form)' },
      404: { description: 'GAME_NOT_FOUND (HTTP form); NOT_FOUND without the NDJSON Accept header and without an upgrade' },
      429: capped,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/stream/events',
    summary: 'Your user channel over HTTP (NDJSON): challenges, games started, rematch offers, friends and clubs',
    description: EVENTS_DOC,
    tags: ['Realtime'],
    security: [{ bearer: [] }, { personalToken: ['games:read'] }],
    request: {
      query: z.object({ token: z.string().optional().meta({ description: 'An access token, when the Authorization header cannot be set' }) }),
    },
    responses: {
      200: { description: 'The events, one JSON object per line, until the client hangs up', content: { 'application/x-ndjson': { schema: z.string(), example: NDJSON_EVENTS_EXAMPLE } } },
      401: { description: 'UNAUTHORIZED: no token, or an invalid one' },
      403: { description: 'MISSING_SCOPE: a personal access token without games:read (`details.scope`)' },
      429: { description: 'RATE_LIMIT_EXCEEDED: this address holds REALTIME_SOCKETS_PER_ADDRESS sockets and streams already, or your user REALTIME_SOCKETS_PER_USER' },
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/matchmake/{method}/{room}',
    summary: 'Rooms (Colyseus): join a game as a player or spectator, the lobby, or a seek pool',
    description: ROOMS_DOC,
    tags: ['Rooms'],
    // Served at the root, not under /v1.
    servers: [{ url: serverUrl }],
    security: [{}, { bearer: [] }],
    request: {
      params: z.object({
        method: z.enum(['joinById', 'reconnect', 'joinOrCreate']),
        room: z.string().meta({ description: 'a game id (joinById), a room id (reconnect), or lobby / seek_pool (joinOrCreate)' }),
      }),
      body: {
        content: {
          'application/json': {
            schema: z.object({ token: z.string().optional(), reconnectionToken: z.string().optional() }).catchall(z.unknown()),
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
      200: { description: 'A seat reservation for the SDK: it opens the room’s WebSocket with it' },
      401: { description: 'UNAUTHORIZED' },
      404: { description: 'NOT_FOUND: no such room, or not one a client may reach' },
      409: { description: 'PLAYER_BUSY (seek pool)' },
      429: { description: 'RATE_LIMIT_EXCEEDED' },
      503: { description: 'SERVICE_UNAVAILABLE: the game is between nodes; retry after Retry-After' },
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/realtime',
    summary: 'Realtime channel (WebSocket): subscribe to games, your user channel, tournaments and the lobby',
    description: REALTIME_DOC,
    tags: ['Realtime'],
    security: [],
    responses: { ...switching, 429: capped },
  });
}
