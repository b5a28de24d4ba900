import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ERROR_STATUS } from '../errors.ts';
import type { Route } from './route.ts';
import { pagePolicy } from './security.ts';

extendZodWithOpenApi(z);

const ErrorEnvelope = z.object({
  success: z.literal(false),
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
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

/** The success body as the route really sends it (see Route.envelope). */
function successContent(r: Route): Record<string, { schema: z.ZodType }> {
  const data = r.response ?? z.unknown();
  switch (r.envelope ?? 'data') {
    case 'raw':
      return { [r.contentType ?? 'text/plain']: { schema: z.string() } };
    case 'message':
      return {
        'application/json': {
          schema: z.object({ success: z.literal(true), message: z.string(), ...(r.response ? { data: data.optional() } : {}) }),
        },
      };
    case 'list':
      return { 'application/json': { schema: z.object({ success: z.literal(true), data, pagination: Pagination }) } };
    default:
      return { 'application/json': { schema: z.object({ success: z.literal(true), data }) } };
  }
}

/**
 * The OpenAPI 3.1 document, generated from the very routes (and zod schemas) that serve and
 * validate requests, so the two cannot drift.
 */
export function buildOpenApi(routes: Route[], serverUrl: string): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  for (const r of routes) {
    if (r.hidden) continue;
    const path = toOpenApiPath(r.path);
    const params = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
    const responses: Record<string, { description: string; content?: object }> = {};
    const status = r.status ?? 200;
    responses[String(status)] = status === 204 ? { description: 'No content' } : { description: 'Success', content: successContent(r) };
    const codes = new Set([...(r.errors ?? []), 'VALIDATION_ERROR']);
    if (r.auth === 'required') codes.add('UNAUTHORIZED');
    if (takesIdempotencyKey(r)) codes.add('IDEMPOTENCY_KEY_REUSED');
    codes.add('RATE_LIMIT_EXCEEDED');
    for (const code of codes) {
      const s = String(ERROR_STATUS[code as keyof typeof ERROR_STATUS] ?? 400);
      const prev = responses[s]?.description;
      responses[s] = {
        description: prev ? `${prev}, ${code}` : code,
        content: { 'application/json': { schema: ErrorEnvelope } },
      };
    }
    registry.registerPath({
      method: r.method,
      path,
      summary: r.summary,
      tags: r.tags,
      security: r.auth === 'none' ? [] : r.auth === 'optional' ? [{}, { bearer: [] }] : [{ bearer: [] }],
      request: {
        params: params.length ? z.object(Object.fromEntries(params.map((p) => [p, z.string()]))) : undefined,
        query: r.query instanceof z.ZodObject ? r.query : undefined,
        headers: takesIdempotencyKey(r) ? IdempotencyHeaders : undefined,
        body: r.body ? { content: { 'application/json': { schema: r.body } } } : undefined,
      },
      responses,
    });
  }
  registerSockets(registry);
  const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Chess service',
      version: '1.0.0',
      description: 'REST API of the realtime chess service. Also served under /api and /api/v1.',
    },
    servers: [{ url: `${serverUrl}/v1` }],
  });
  return doc;
}

/** A self-contained reference page (no CDN: the service may run offline). */
const DOCS_STYLE = 'body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top}';

/** The reference page, and its content security policy (its one inline style, nothing else). */
export function renderDocs(doc: any): { html: string; policy: string } {
  const esc = (s: unknown) => String(s ?? '').replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const rows: string[] = [];
  for (const [path, ops] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const statuses = Object.entries<any>(op.responses ?? {})
        .map(([s, r]) => `<code>${esc(s)}</code> ${esc(r.description)}`)
        .join('<br>');
      const auth = op.security?.length === 1 && Object.keys(op.security[0]).length ? 'bearer' : op.security?.length ? 'optional' : 'none';
      rows.push(
        `<tr><td><b>${esc(method.toUpperCase())}</b></td><td><code>${esc(path)}</code></td><td>${esc(op.summary)}</td><td>${auth}</td><td>${statuses}</td></tr>`,
      );
    }
  }
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Chess service API</title>
<style>${DOCS_STYLE}</style>
</head><body><h1>Chess service API</h1>
<p>Base path <code>/v1</code> (also <code>/api</code> and <code>/api/v1</code>). Machine-readable: <a href="/v1/openapi.json">/v1/openapi.json</a> (OpenAPI 3.1).
Every response uses the envelope <code>{success, data}</code> or <code>{success: false, error: {code, message, details?}}</code>.</p>
<table><tr><th>Method</th><th>Path</th><th>Summary</th><th>Auth</th><th>Responses</th></tr>${rows.join('\n')}</table></body></html>`;
  return { html, policy: pagePolicy({ styles: [DOCS_STYLE] }) };
}

const STREAM_DOC = `A WebSocket (\`ws://…/v1/games/{id}/stream\`, also under /api and /api/v1). Watching is public; a token
(\`?token=\` or \`Authorization: Bearer\`) is optional and, when given, must be valid (a pending game shows only to its players).
Every message is JSON with \`type\`, \`v\` (the game's event number) and \`ts\` (Unix ms):
- \`state {game}\`: the game detail of GET /games/{id}, first (again after a hole the replay buffer could not fill, and when a pending game starts or is abandoned);
- \`move {move: {…Move, ply, fen, move_count, current_turn}, times: {white, black}}\`, each followed by \`time_update {times}\` (seconds);
- \`time_update {times}\` every 5 s while the clocks run (it carries the current v, it does not advance it);
- \`draw_offer {draw_offer}\` when an offer opens or closes;
- \`game_end {status, abort_reason, result: {result, winner, termination, rating_changes}}\`, then the server closes with 1000.
\`?since=v\` (the last v seen) resumes after a reconnect: the events after v from a short buffer, else a fresh state.
The client may send \`{"type":"ping"}\` (answered \`pong\`). Close codes: 1000 game over, 1008 too many refused messages,
1009 frame over 4 KB, 1011 reconnect with ?since, 1012 service restarting, 1013 reading too slowly, 4401 bad token
(after \`error UNAUTHORIZED\`), 4404 unknown game (after \`error GAME_NOT_FOUND\`).`;

const REALTIME_DOC = `A WebSocket (\`ws://…/v1/realtime\`, also /realtime) carrying many channels. The client sends
\`{"type":"subscribe","channel":…,"token"?:…,"id"?:…}\`, \`{"type":"unsubscribe","channel":…}\` and \`{"type":"ping"}\`; the answers are
\`subscribed {channel}\`, \`unsubscribed {channel}\`, \`pong\` (echoing \`id\`) or \`error {code, message, channel?}\`. Channels:
- \`game:<id>\`: the stream's messages, each with \`channel\` (public; a pending game needs a player's token);
- \`user:<your id>\` (your token): \`challenge_received {game_id, from}\`, \`challenge_declined {game_id, by}\`, \`challenge_cancelled {game_id, by}\`,
  \`challenge_expired {game_id}\`, \`game_started {game_id, seek_id?}\`, \`tournament_started {tournament: {id, name, starts_at}}\`,
  \`tournament_pairing {tournament_id, game_id, color, opponent: {id, username}}\` (the game is active, both seated: join its room);
  when the session ends (logout) \`error UNAUTHORIZED\` and the subscription stops;
- \`tournament:<id>\` (any valid token): \`pairing {game_id, white: {id, username}, black: {id, username}}\`, \`standings {standings
  (the first 100), standings_total}\` after counted games, \`status {status}\` when the arena starts running and when it finishes;
- \`lobby\`: \`seeks {seeks}\` first, then \`seek_added {seek}\` and \`seek_removed {id, reason}\`.
Errors: UNAUTHORIZED (bad token), FORBIDDEN (another user's channel), GAME_NOT_FOUND, TOURNAMENT_NOT_FOUND, VALIDATION_ERROR (malformed message,
unknown channel), RATE_LIMIT_EXCEEDED (60 messages at once, 10 a second after that). Close codes as for the stream.`;

/** The two WebSockets, documented where REST clients look (OpenAPI has no WebSocket operations). */
function registerSockets(registry: OpenAPIRegistry): void {
  const switching = { 101: { description: 'Switching Protocols: the WebSocket opens (messages in the description)' } };
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
    responses: switching,
  });
  registry.registerPath({
    method: 'get',
    path: '/realtime',
    summary: 'Realtime channel (WebSocket): subscribe to games, your user channel, tournaments and the lobby',
    description: REALTIME_DOC,
    tags: ['Realtime'],
    security: [],
    responses: switching,
  });
}
