import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { withTransaction, type Queryable } from '../db/pool.ts';
import * as repo from '../db/webhooks.ts';
import { parseId } from '../domain/ids.ts';
import { AppError } from '../errors.ts';
import { bind } from './bind.ts';

/** The event names of the interface (spec 6.1). */
export const WEBHOOK_EVENTS = ['game.started', 'game.finished', 'game.move', 'friend.request', 'friend.accepted', 'club.invite', 'tournament.started'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const MAX_WEBHOOKS_PER_USER = 20;
/** Test deliveries an endpoint may have pending at once (each holds a slot while its receiver is slow). */
export const MAX_PENDING_TESTS = 3;

/**
 * Whether a registered URL may be a target. Without WEBHOOKS_ALLOW_PRIVATE: https, and no host
 * that names a non-public address outright (the sender checks every address a name resolves
 * to when it connects, src/workers/webhookSender.ts).
 */
export function targetProblem(url: string, allowPrivate: boolean): string | undefined {
  if (!URL.canParse(url) || /[\s\p{Cc}]/u.test(url)) return 'must be a valid URL';
  const u = new URL(url);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return 'must be an http(s) URL';
  if (u.username || u.password) return 'must not carry credentials';
  if (allowPrivate) return undefined;
  if (u.protocol !== 'https:') return 'must be https';
  // `localhost.` is `localhost` (a fully qualified name ends in the root's empty label).
  const host = u.hostname.replace(/^\[|\]$/g, '').replace(/\.+$/, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal')) return 'must be a public address';
  if (ipaddr.isValid(host)) {
    const parsed = ipaddr.process(host);
    if (parsed.range() !== 'unicast') return 'must be a public address';
  }
  return undefined;
}

export const CreateWebhookBody = z.object({
  url: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .max(2048, 'must be at most 2048 characters')
    .meta({
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://',
      description: 'https on a public address (http and private addresses only with WEBHOOKS_ALLOW_PRIVATE=true); no localhost',
    }),
  events: z
    .array(z.enum(WEBHOOK_EVENTS, { error: `must be one of ${WEBHOOK_EVENTS.join(', ')}` }), { error: 'must be an array of event names' })
    .min(1, 'must name at least one event')
    .max(WEBHOOK_EVENTS.length)
    .transform((events) => [...new Set(events)]),
  secret: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .min(16, 'must be at least 16 characters')
    .max(256, 'must be at most 256 characters'),
});
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

export const WebhookView = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.string()),
  active: z.boolean(),
  disabled_reason: z.string().nullable(),
  created_at: z.iso.datetime(),
});
export type WebhookView = z.infer<typeof WebhookView>;

export const DeliveryView = z.object({
  id: z.string(),
  event: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  last_response_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
  delivered_at: z.iso.datetime().nullable(),
});
export type DeliveryView = z.infer<typeof DeliveryView>;

const formatWebhook = (w: repo.WebhookRecord): WebhookView => ({
  id: w.id,
  url: w.url,
  events: w.events,
  active: w.active,
  disabled_reason: w.disabledReason,
  created_at: w.createdAt.toISOString(),
});

const formatDelivery = (d: repo.DeliveryRecord): DeliveryView => ({
  id: `msg_${d.id}`,
  event: d.event,
  status: d.status,
  attempts: d.attempts,
  last_response_code: d.lastStatusCode,
  last_error: d.lastError,
  next_attempt_at: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
  created_at: d.createdAt.toISOString(),
  delivered_at: d.deliveredAt?.toISOString() ?? null,
});

const notFound = () => new AppError('WEBHOOK_NOT_FOUND', 'Webhook not found');

/**
 * An event for the recipients' webhooks (DESIGN 2.7), written in `db` — the transaction of the
 * change that causes it — and delivered by the dispatcher of any node. The one way the areas
 * (friends, clubs, tournaments) send webhook events: `data` is the event's `data` as is.
 */
export function emit(db: Queryable, type: WebhookEvent, recipientUserIds: string[], data: object): Promise<void> {
  return repo.insertOutbox(db, { topic: type, gameId: null, userIds: recipientUserIds, payload: data });
}

/** game.started, in the transaction that starts the game (its `data.game` is the detail, made at delivery). */
export function emitGameStarted(db: Queryable, gameId: string, playerIds: string[]): Promise<void> {
  return repo.insertOutbox(db, { topic: 'game.started', gameId, userIds: playerIds, payload: { game_id: gameId } });
}

/** What the webhook use cases work with. */
export type WebhooksDeps = Pick<AppContext, 'pool' | 'config' | 'clock'>;

async function owned(d: WebhooksDeps, userId: string, requestedId: string): Promise<repo.WebhookRecord> {
  const id = parseId(requestedId);
  const w = id ? await repo.findWebhook(d.pool, userId, id) : undefined;
  if (!w) throw notFound();
  return w;
}

export async function create(d: WebhooksDeps, userId: string, body: CreateWebhookBody): Promise<WebhookView> {
  const problem = targetProblem(body.url, d.config.webhooksAllowPrivate);
  if (problem) throw new AppError('VALIDATION_ERROR', 'Invalid request data', { url: [problem] });
  const created = await withTransaction(d.pool, async (tx) => {
    const w = await repo.insertWebhook(tx, { userId, url: body.url, events: body.events, secret: body.secret, max: MAX_WEBHOOKS_PER_USER });
    // game.move from the next move of the games the user is playing now.
    if (w?.events.includes('game.move')) await repo.openMoveFeedsOf(tx, userId);
    return w;
  });
  if (!created) throw new AppError('WEBHOOK_LIMIT', `At most ${MAX_WEBHOOKS_PER_USER} webhooks per user`);
  return formatWebhook(created);
}

export async function list(d: WebhooksDeps, userId: string, page: { page: number; limit: number }) {
  const { rows, total } = await repo.listWebhooks(d.pool, userId, page.limit, (page.page - 1) * page.limit);
  return { webhooks: rows.map(formatWebhook), total };
}

export const get = async (d: WebhooksDeps, userId: string, id: string) => formatWebhook(await owned(d, userId, id));

export async function remove(d: WebhooksDeps, userId: string, requestedId: string): Promise<void> {
  const id = parseId(requestedId);
  if (!id || !(await repo.deleteWebhook(d.pool, userId, id))) throw notFound();
}

export async function deliveries(d: WebhooksDeps, userId: string, id: string, page: { page: number; limit: number }) {
  const w = await owned(d, userId, id);
  const { rows, total } = await repo.listDeliveries(d.pool, w.id, page.limit, (page.page - 1) * page.limit);
  return { deliveries: rows.map(formatDelivery), total };
}

/**
 * A `webhook.test` delivery to the endpoint, whatever events it subscribes to. At most
 * MAX_PENDING_TESTS wait at once: a test is there to see an endpoint answer, and a pile of
 * them against a slow receiver only holds delivery slots.
 */
export async function test(d: WebhooksDeps, userId: string, id: string): Promise<DeliveryView> {
  const w = await owned(d, userId, id);
  const body = JSON.stringify({
    type: 'webhook.test',
    timestamp: new Date(d.clock.now()).toISOString(),
    data: { webhook_id: w.id, message: 'A test delivery from the chess service' },
  });
  const test = { webhookId: w.id, event: 'webhook.test', body, orderKey: null, seq: 0 };
  const delivery = await withTransaction(d.pool, async (tx) => {
    // The endpoint's row is locked, so tests asked for at once are counted one after another.
    if (!(await repo.lockWebhook(tx, w.id))) throw notFound();
    if ((await repo.countPending(tx, w.id, 'webhook.test')) >= MAX_PENDING_TESTS) {
      throw new AppError('RATE_LIMIT_EXCEEDED', `At most ${MAX_PENDING_TESTS} test deliveries may be pending per webhook`, undefined, {
        retryAfter: Math.ceil(d.config.webhookTimeoutMs / 1000),
      });
    }
    const [inserted] = await repo.insertDeliveries(tx, [test], new Date(d.clock.now()), d.config.webhookMaxPending);
    return inserted;
  });
  return formatDelivery(delivery);
}

export type Webhooks = ReturnType<typeof createWebhooks>;

export function createWebhooks(d: WebhooksDeps) {
  return bind(d, { create, list, get, remove, deliveries, test });
}
