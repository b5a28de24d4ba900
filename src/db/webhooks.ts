import type { Queryable } from './pool.ts';

export type WebhookRecord = {
  id: string;
  userId: string;
  url: string;
  events: string[];
  secret: string;
  active: boolean;
  disabledReason: string | null;
  createdAt: Date;
};

export type DeliveryRecord = {
  id: string;
  webhookId: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: Date;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
};

const WEBHOOK_COLUMNS = 'id, user_id, url, events, secret, active, disabled_reason, created_at';
const toWebhook = (r: any): WebhookRecord => ({
  id: r.id,
  userId: r.user_id,
  url: r.url,
  events: r.events,
  secret: r.secret,
  active: r.active,
  disabledReason: r.disabled_reason,
  createdAt: r.created_at,
});

const DELIVERY_COLUMNS = 'id, webhook_id, event, status, attempts, next_attempt_at, last_status_code, last_error, created_at, delivered_at';
const toDelivery = (r: any): DeliveryRecord => ({
  id: r.id,
  webhookId: r.webhook_id,
  event: r.event,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.next_attempt_at,
  lastStatusCode: r.last_status_code,
  lastError: r.last_error,
  createdAt: r.created_at,
  deliveredAt: r.delivered_at,
});

/** Inserts an endpoint unless the user already has `max`; undefined when at the limit. */
export async function insertWebhook(
  db: Queryable,
  w: { userId: string; url: string; events: string[]; secret: string; max: number },
): Promise<WebhookRecord | undefined> {
  // The user's row is locked, so two requests at once cannot both take the last place.
  await db.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [w.userId]);
  const { rows } = await db.query(
    `INSERT INTO webhooks (user_id, url, events, secret)
     SELECT $1, $2, $3, $4 WHERE (SELECT count(*) FROM webhooks WHERE user_id = $1) < $5
     RETURNING ${WEBHOOK_COLUMNS}`,
    [w.userId, w.url, w.events, w.secret, w.max],
  );
  return rows[0] && toWebhook(rows[0]);
}

export async function listWebhooks(db: Queryable, userId: string, limit: number, offset: number): Promise<{ rows: WebhookRecord[]; total: number }> {
  const [page, count] = await Promise.all([
    db.query(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE user_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`, [userId, limit, offset]),
    db.query('SELECT count(*)::int AS total FROM webhooks WHERE user_id = $1', [userId]),
  ]);
  return { rows: page.rows.map(toWebhook), total: count.rows[0].total };
}

export async function findWebhook(db: Queryable, userId: string, id: string): Promise<WebhookRecord | undefined> {
  const { rows } = await db.query(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND user_id = $2`, [id, userId]);
  return rows[0] && toWebhook(rows[0]);
}

/** Locks an endpoint's row for this transaction; false when it is gone. */
export async function lockWebhook(tx: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await tx.query('SELECT 1 FROM webhooks WHERE id = $1 FOR UPDATE', [id]);
  return rowCount === 1;
}

export async function deleteWebhook(db: Queryable, userId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM webhooks WHERE id = $1 AND user_id = $2', [id, userId]);
  return rowCount === 1;
}

export async function listDeliveries(db: Queryable, webhookId: string, limit: number, offset: number): Promise<{ rows: DeliveryRecord[]; total: number }> {
  const [page, count] = await Promise.all([
    db.query(`SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY created_at DESC, seq DESC, id LIMIT $2 OFFSET $3`, [
      webhookId,
      limit,
      offset,
    ]),
    db.query('SELECT count(*)::int AS total FROM webhook_deliveries WHERE webhook_id = $1', [webhookId]),
  ]);
  return { rows: page.rows.map(toDelivery), total: count.rows[0].total };
}

export type NewDelivery = { webhookId: string; event: string; body: string; orderKey: string | null; seq: number };

/**
 * New deliveries, due at `now` (the service's clock). An endpoint holds at most `maxPending`
 * pending deliveries: one past that is not queued but stored failed, saying why, so its owner
 * sees what it missed (the deliveries already promised keep their place and their order). Two
 * nodes fanning out for one endpoint at the same instant may each fill the last places: the cap
 * holds give or take one batch.
 */
export async function insertDeliveries(db: Queryable, deliveries: NewDelivery[], now: Date, maxPending: number): Promise<DeliveryRecord[]> {
  if (deliveries.length === 0) return [];
  const { rows } = await db.query(
    `WITH t AS (
       SELECT w, e, b, o, s, row_number() OVER (PARTITION BY w ORDER BY i) AS k
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::bigint[]) WITH ORDINALITY AS t(w, e, b, o, s, i)),
     queued AS (
       SELECT webhook_id, count(*) AS n FROM webhook_deliveries
        WHERE status = 'pending' AND webhook_id = ANY($1::uuid[]) GROUP BY webhook_id),
     placed AS (SELECT t.*, coalesce(q.n, 0) + t.k > $7 AS is_full FROM t LEFT JOIN queued q ON q.webhook_id = t.w)
     INSERT INTO webhook_deliveries (webhook_id, event, body, order_key, seq, next_attempt_at, status, last_error)
     SELECT w, e, b, o, s, $6, CASE WHEN is_full THEN 'failed' ELSE 'pending' END,
            CASE WHEN is_full THEN 'not queued: ' || $7 || ' deliveries already pending' END
       FROM placed
     RETURNING ${DELIVERY_COLUMNS}`,
    [
      deliveries.map((d) => d.webhookId),
      deliveries.map((d) => d.event),
      deliveries.map((d) => d.body),
      deliveries.map((d) => d.orderKey),
      deliveries.map((d) => d.seq),
      now,
      maxPending,
    ],
  );
  return rows.map(toDelivery);
}

/** How many `event` deliveries of an endpoint are pending. */
export async function countPending(db: Queryable, webhookId: string, event: string): Promise<number> {
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1 AND event = $2 AND status = 'pending'`, [webhookId, event]);
  return rows[0].n;
}

/** The active endpoints of these users that subscribe to `event`. */
export async function subscribedWebhooks(db: Queryable, userIds: string[], event: string): Promise<{ id: string; userId: string }[]> {
  const { rows } = await db.query('SELECT id, user_id FROM webhooks WHERE user_id = ANY($1::uuid[]) AND active AND $2 = ANY(events)', [userIds, event]);
  return rows.map((r) => ({ id: r.id, userId: r.user_id }));
}

// ---- the outbox and the move feeds (the dispatcher's fan-out) ------------------------------

export type OutboxRow = { id: string; topic: string; gameId: string | null; userIds: string[]; payload: Record<string, unknown>; createdAt: Date };

/** An event for webhooks, written in the transaction of the change that causes it. */
export async function insertOutbox(db: Queryable, o: { topic: string; gameId: string | null; userIds: string[]; payload: object }): Promise<void> {
  await db.query('INSERT INTO outbox (topic, game_id, user_ids, payload) VALUES ($1, $2, $3, $4)', [
    o.topic,
    o.gameId,
    o.userIds,
    JSON.stringify(o.payload),
  ]);
}

/** Unprocessed outbox rows, oldest first, locked for this transaction (other nodes skip them). */
export async function claimOutbox(tx: Queryable, limit: number): Promise<OutboxRow[]> {
  const { rows } = await tx.query(
    `SELECT id, topic, game_id, user_ids, payload, created_at FROM outbox WHERE processed_at IS NULL
      ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return rows.map((r) => ({ id: r.id, topic: r.topic, gameId: r.game_id, userIds: r.user_ids, payload: r.payload, createdAt: r.created_at }));
}

export async function markOutboxProcessed(tx: Queryable, ids: string[]): Promise<void> {
  await tx.query('UPDATE outbox SET processed_at = now() WHERE id = ANY($1::bigint[])', [ids]);
}

/** Starts fanning out a game's moves from `nextPly` when one of its players has a game.move endpoint. */
export async function openMoveFeed(tx: Queryable, gameId: string, playerIds: string[], nextPly: number): Promise<void> {
  await tx.query(
    `INSERT INTO webhook_move_feeds (game_id, next_ply)
     SELECT $1, $3 WHERE EXISTS (SELECT 1 FROM webhooks WHERE user_id = ANY($2::uuid[]) AND active AND 'game.move' = ANY(events))
     ON CONFLICT (game_id) DO NOTHING`,
    [gameId, playerIds, nextPly],
  );
}

/** Move feeds of the user's active games, from their next move on (a new game.move endpoint). */
export async function openMoveFeedsOf(tx: Queryable, userId: string): Promise<void> {
  await tx.query(
    `INSERT INTO webhook_move_feeds (game_id, next_ply)
     SELECT g.id, greatest(g.move_count, (SELECT max(m.ply) FROM game_moves m WHERE m.game_id = g.id)) + 1
       FROM games g WHERE g.status = 'active' AND (g.white_id = $1 OR g.black_id = $1)
     ON CONFLICT (game_id) DO NOTHING`,
    [userId],
  );
}

export type MoveFeed = { gameId: string; nextPly: number; whiteId: string; blackId: string; initialMs: number; moveCount: number; active: boolean };

const FEED_COLUMNS = 'f.game_id, f.next_ply, g.white_id, g.black_id, g.initial_time, g.move_count, g.status';

/** Feeds with moves to fan out, or whose game ended (to be closed), locked for this transaction. */
export async function claimMoveFeeds(tx: Queryable, limit: number): Promise<MoveFeed[]> {
  const { rows } = await tx.query(
    `SELECT ${FEED_COLUMNS} FROM webhook_move_feeds f JOIN games g ON g.id = f.game_id
      WHERE g.status <> 'active' OR g.move_count >= f.next_ply
         -- a move appended after the row's snapshot (migration 017)
         OR EXISTS (SELECT 1 FROM game_moves m WHERE m.game_id = f.game_id AND m.ply = f.next_ply)
      LIMIT $1 FOR UPDATE OF f SKIP LOCKED`,
    [limit],
  );
  return rows.map(toFeed);
}

/** One game's feed, waiting for another node that holds it (its game's end must follow its moves). */
export async function lockMoveFeed(tx: Queryable, gameId: string): Promise<MoveFeed | undefined> {
  const { rows } = await tx.query(`SELECT ${FEED_COLUMNS} FROM webhook_move_feeds f JOIN games g ON g.id = f.game_id WHERE f.game_id = $1 FOR UPDATE OF f`, [
    gameId,
  ]);
  return rows[0] && toFeed(rows[0]);
}

function toFeed(r: any): MoveFeed {
  return {
    gameId: r.game_id,
    nextPly: r.next_ply,
    whiteId: r.white_id,
    blackId: r.black_id,
    initialMs: r.initial_time * 1000,
    moveCount: r.move_count,
    active: r.status === 'active',
  };
}

export async function advanceMoveFeed(tx: Queryable, gameId: string, nextPly: number, open: boolean): Promise<void> {
  if (open) await tx.query('UPDATE webhook_move_feeds SET next_ply = $2 WHERE game_id = $1', [gameId, nextPly]);
  else await tx.query('DELETE FROM webhook_move_feeds WHERE game_id = $1', [gameId]);
}

// ---- deliveries --------------------------------------------------------------------------

export type ClaimedDelivery = { id: string; webhookId: string; event: string; body: string; attempts: number; url: string; secret: string };

/**
 * Due deliveries, taken for `lockMs` (a node that dies mid-delivery lets them go again after
 * it). Per owner (the endpoints' user) at most `perOwner` in flight, counting those other nodes
 * hold, so one user's slow endpoints cannot take every slot; a delivery with an order key waits
 * while an earlier one of the same key (a game's earlier move) is pending.
 */
export async function claimDeliveries(db: Queryable, o: { now: Date; limit: number; perOwner: number; lockMs: number }): Promise<ClaimedDelivery[]> {
  const { rows } = await db.query(
    `WITH held AS (
       SELECT w.user_id, count(*) AS n FROM webhook_deliveries x JOIN webhooks w ON w.id = x.webhook_id
        WHERE x.status = 'pending' AND x.locked_until >= $1 GROUP BY w.user_id),
     ranked AS (
       SELECT x.id, x.next_attempt_at, w.user_id, row_number() OVER (PARTITION BY w.user_id ORDER BY x.next_attempt_at, x.seq, x.id) AS n
         FROM webhook_deliveries x JOIN webhooks w ON w.id = x.webhook_id AND w.active
        WHERE x.status = 'pending' AND x.next_attempt_at <= $1 AND (x.locked_until IS NULL OR x.locked_until < $1)
          AND (x.order_key IS NULL OR NOT EXISTS (
                SELECT 1 FROM webhook_deliveries e
                 WHERE e.webhook_id = x.webhook_id AND e.order_key = x.order_key AND e.status = 'pending' AND e.seq < x.seq))),
     due AS (
       -- Each owner's share is cut before the limit: else one owner's backlog, due earlier,
       -- would fill the limit and leave nothing for anyone else.
       SELECT r.id FROM ranked r LEFT JOIN held h ON h.user_id = r.user_id
        WHERE r.n + coalesce(h.n, 0) <= $3
        ORDER BY r.next_attempt_at LIMIT $2 * 2),
     taken AS (
       -- The claim's own conditions again, on the row as locked: \`due\` saw the statement's
       -- snapshot, and a row another node claimed and committed since then is locked here all
       -- the same (SKIP LOCKED skips only rows still locked). Only these are checked again on
       -- the newest version of the row, so without them both nodes would send it.
       SELECT d.id FROM webhook_deliveries d JOIN due ON due.id = d.id
        WHERE d.status = 'pending' AND (d.locked_until IS NULL OR d.locked_until < $1)
        ORDER BY d.next_attempt_at LIMIT $2 FOR UPDATE OF d SKIP LOCKED)
     UPDATE webhook_deliveries d SET locked_until = $1::timestamptz + make_interval(secs => $4::double precision / 1000)
       FROM taken, webhooks w WHERE d.id = taken.id AND w.id = d.webhook_id
     RETURNING d.id, d.webhook_id, d.event, d.body, d.attempts, w.url, w.secret`,
    [o.now, o.limit, o.perOwner, o.lockMs],
  );
  return rows.map((r) => ({ id: r.id, webhookId: r.webhook_id, event: r.event, body: r.body, attempts: r.attempts, url: r.url, secret: r.secret }));
}

/** Records an attempt and its outcome; false when the claim was lost meanwhile (another node took it). */
export async function recordAttempt(
  db: Queryable,
  a: {
    deliveryId: string;
    attempt: number;
    statusCode: number | null;
    error: string | null;
    durationMs: number;
    outcome: 'delivered' | 'retry' | 'failed';
    nextAttemptAt: Date | null;
  },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH d AS (
       UPDATE webhook_deliveries SET attempts = $2, last_status_code = $3, last_error = $4, locked_until = NULL,
              status = CASE $6 WHEN 'delivered' THEN 'delivered' WHEN 'failed' THEN 'failed' ELSE 'pending' END,
              delivered_at = CASE WHEN $6 = 'delivered' THEN now() END,
              next_attempt_at = coalesce($7, next_attempt_at)
        WHERE id = $1 AND attempts = $2 - 1 AND status = 'pending'
        RETURNING id)
     INSERT INTO webhook_attempts (delivery_id, attempt, status_code, error, duration_ms)
     SELECT id, $2, $3, $4, $5 FROM d`,
    [a.deliveryId, a.attempt, a.statusCode, a.error, a.durationMs, a.outcome, a.nextAttemptAt],
  );
  return rowCount === 1;
}

/** Turns an endpoint off (410, or its retries ran out); its pending deliveries fail with it. */
export async function disableWebhook(db: Queryable, id: string, reason: string): Promise<void> {
  await db.query(
    `WITH w AS (UPDATE webhooks SET active = false, disabled_reason = $2 WHERE id = $1 AND active RETURNING id)
     UPDATE webhook_deliveries SET status = 'failed', last_error = coalesce(last_error, $2), locked_until = NULL
      WHERE webhook_id IN (SELECT id FROM w) AND status = 'pending'`,
    [id, reason],
  );
}

/** Deliveries waiting (metrics). */
export async function countPendingDeliveries(db: Queryable): Promise<number> {
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`);
  return rows[0].n;
}
