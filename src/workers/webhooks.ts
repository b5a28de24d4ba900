import type { Pool } from '../db/pool.ts';
import * as repo from '../db/webhooks.ts';
import type { Logger } from '../logger.ts';
import { withTimeout, type Clock, type TimerHandle } from '../time.ts';
import { fanOutMoves, fanOutOutbox, MoveBoards, type FanOutDeps } from './webhookFanOut.ts';
import { SEND_TIMEOUT_MS, type Send, type SendResult } from './webhookSender.ts';

/** DESIGN 2.7: the waits before each retry; after the last one the endpoint is disabled. */
export const RETRY_DELAYS_MS = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400].map((s) => s * 1000);
/** The longest Retry-After honoured. */
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/** Deliveries of one user in flight at once, across the cluster. */
export const IN_FLIGHT_PER_OWNER = 4;
/** Pending deliveries one endpoint may hold (more are not queued, see insertDeliveries). */
export const MAX_PENDING_PER_ENDPOINT = 1000;
/**
 * How long past an attempt's deadline its claim still holds: time to record the outcome. The
 * claim must outlive the attempt, or another node takes the delivery while it is still in flight.
 */
const CLAIM_MARGIN_MS = 20_000;
/** Past the sender's own deadline, the dispatcher's: a send that never settles still lets go of its slot before its claim lapses. */
const BACKSTOP_MS = 1000;

export type WebhookDispatcherDeps = {
  pool: Pool;
  log: Logger;
  clock: Clock;
  send: Send;
  /** The game detail for a game.started event's `data.game`. */
  gameDetail: (gameId: string) => Promise<unknown>;
  /** Deliveries in flight on this node at once. */
  maxInFlight?: number;
  /** Deliveries of one user in flight at once, counted across the cluster (a slow user holds no more). */
  perOwner?: number;
  /** Pending deliveries an endpoint may hold; events past it are stored failed, not queued. */
  maxPending?: number;
  /** The send's deadline per attempt (the sender's `timeoutMs`). */
  attemptTimeoutMs?: number;
  /**
   * How long a claimed delivery is this node's (past it, another node may take it: it died).
   * Longer than an attempt can take, else a delivery still in flight is sent again elsewhere.
   */
  lockMs?: number;
  pollMs?: number;
  /** Told of each finished attempt (metrics). */
  observe?: (outcome: 'delivered' | 'retry' | 'failed', durationMs: number) => void;
};

/**
 * The webhook dispatcher of one node (DESIGN 2.7): every `pollMs` it turns new outbox rows and
 * new moves of followed games into deliveries (one per subscribed endpoint, in the transaction
 * that marks them done; an endpoint's backlog is capped), then claims due deliveries (`FOR
 * UPDATE SKIP LOCKED` and a lock time that outlives the attempt, so two nodes never send one
 * attempt at once; a few per user, so nobody's slow receivers take everyone's slots) and sends
 * them, signed. A 2xx is delivered; 410 disables the endpoint; anything else retries on the
 * schedule (or after `Retry-After`), and after the last retry the delivery fails and the
 * endpoint is disabled. A game's moves reach an endpoint in order: a later one waits while an
 * earlier one is pending.
 */
export type WebhookDispatcher = {
  /** A pass at once (or right after the one under way): new rows, or a delivery finished. */
  kick: () => void;
  /**
   * Resolves once no pass is under way or asked for at once and no delivery is in flight: until
   * time moves, nothing more happens (tests prove that nothing was sent on a manual clock).
   */
  idle: () => Promise<void>;
  stop: () => Promise<void>;
};

export function startWebhookDispatcher(d: WebhookDispatcherDeps): WebhookDispatcher {
  const attemptMs = (d.attemptTimeoutMs ?? SEND_TIMEOUT_MS) + BACKSTOP_MS;
  const lockMs = d.lockMs ?? attemptMs + CLAIM_MARGIN_MS;
  if (lockMs <= attemptMs) throw new Error(`webhook claims (${lockMs} ms) must outlive an attempt (${attemptMs} ms)`);
  const loop = new DispatchLoop(d, {
    maxInFlight: d.maxInFlight ?? 32,
    perOwner: d.perOwner ?? IN_FLIGHT_PER_OWNER,
    attemptMs,
    lockMs,
    pollMs: d.pollMs ?? 250,
  });
  loop.schedule();
  return { kick: () => loop.soon(), idle: () => loop.idle(), stop: () => loop.stop() };
}

/** The dispatcher's settings, defaults resolved. */
type DispatchSettings = { maxInFlight: number; perOwner: number; attemptMs: number; lockMs: number; pollMs: number };

/**
 * The passes of one dispatcher: one at a time, every `pollMs`, or at once when asked (a kick, a
 * delivery finished); each fans out new events, then sends what is due within the free slots.
 */
class DispatchLoop {
  private readonly sending = new Set<Promise<void>>();
  private readonly fanOut: FanOutDeps;
  private stopped = false;
  private timer: TimerHandle | undefined;
  private running: Promise<void> | undefined;
  /** Another pass is asked for as soon as the one under way ends. */
  private again = false;
  /** A pass is asked for at once (its timer is due) and has not started. */
  private dueNow = false;

  constructor(
    private readonly d: WebhookDispatcherDeps,
    private readonly s: DispatchSettings,
  ) {
    this.fanOut = { pool: d.pool, clock: d.clock, gameDetail: d.gameDetail, maxPending: d.maxPending ?? MAX_PENDING_PER_ENDPOINT, boards: new MoveBoards() };
  }

  /** The next pass: at once if one was asked for while the last ran, else after `pollMs`. */
  schedule(): void {
    if (this.stopped) return;
    this.d.clock.clearTimeout(this.timer);
    this.timer = this.d.clock.setTimeout(this.pass, this.again ? 0 : this.s.pollMs);
    this.dueNow = this.again;
    this.again = false;
  }

  /** Another pass as soon as this one ends: a delivery finished, so the next of its game may go. */
  soon(): void {
    if (this.running) this.again = true;
    else if (!this.stopped) {
      this.d.clock.clearTimeout(this.timer);
      this.timer = this.d.clock.setTimeout(this.pass, 0);
      this.dueNow = true;
    }
  }

  private readonly pass = (): void => {
    if (this.running) return;
    this.dueNow = false;
    this.running = this.runPass().finally(() => {
      this.running = undefined;
      this.schedule();
    });
  };

  private async runPass(): Promise<void> {
    try {
      await fanOutOutbox(this.fanOut);
      await fanOutMoves(this.fanOut);
      await this.deliverDue();
    } catch (err) {
      this.d.log.warn({ err }, 'webhook pass failed');
    }
  }

  /** Claims as many due deliveries as there are free slots and sends them; each frees its slot when it ends. */
  private async deliverDue(): Promise<void> {
    const free = this.s.maxInFlight - this.sending.size;
    if (free <= 0) return;
    const { perOwner, lockMs } = this.s;
    const claimed = await repo.claimDeliveries(this.d.pool, { now: new Date(this.d.clock.now()), limit: free, perOwner, lockMs });
    for (const c of claimed) {
      const work = attemptDelivery(this.d, this.s.attemptMs, c).finally(() => {
        this.sending.delete(work);
        this.soon();
      });
      this.sending.add(work);
    }
  }

  async idle(): Promise<void> {
    for (;;) {
      if (this.dueNow && !this.stopped) {
        // The pass asked for at once runs now rather than when the clock fires its timer.
        this.d.clock.clearTimeout(this.timer);
        this.pass();
      }
      if (this.running) await this.running;
      else if (this.sending.size) await Promise.allSettled(this.sending);
      else return;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.d.clock.clearTimeout(this.timer);
    await this.running;
    await Promise.all(this.sending);
  }
}

/** One attempt of a claimed delivery: sent within `attemptMs`, its outcome recorded (and the endpoint disabled when it failed for good). */
async function attemptDelivery(d: WebhookDispatcherDeps, attemptMs: number, c: repo.ClaimedDelivery): Promise<void> {
  const result = await sendWithin(d, attemptMs, c);
  // The owner sees the coarse error; what really happened (names, addresses) is ours.
  if (result.detail) d.log.info({ delivery: c.id, webhook: c.webhookId, error: result.error, detail: result.detail }, 'webhook attempt got no answer');
  const attemptNo = c.attempts + 1;
  const { outcome, gone, waitMs } = judgeAttempt(result, attemptNo);
  const recorded = await repo
    .recordAttempt(d.pool, {
      deliveryId: c.id,
      attempt: attemptNo,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: Math.round(result.durationMs),
      outcome,
      nextAttemptAt: outcome === 'retry' ? new Date(d.clock.now() + waitMs) : null,
    })
    .catch((err) => (d.log.warn({ err, delivery: c.id }, 'webhook attempt not recorded'), false));
  if (!recorded) return;
  d.observe?.(outcome, result.durationMs);
  if (outcome === 'failed') {
    await repo.disableWebhook(d.pool, c.webhookId, gone ? 'the receiver answered 410 Gone' : 'every retry failed').catch(() => {});
  }
}

/** The send's answer; a send that throws or never settles within `attemptMs` is an answer too. */
async function sendWithin(d: WebhookDispatcherDeps, attemptMs: number, c: repo.ClaimedDelivery): Promise<SendResult> {
  const at = new Date(d.clock.now());
  try {
    return await withTimeout(
      d.send({ url: c.url, id: `msg_${c.id}`, body: c.body, secret: c.secret, at }),
      attemptMs,
      (): SendResult => ({ statusCode: null, error: 'timed out', detail: `the send did not settle within ${attemptMs} ms`, retryAfterMs: null, durationMs: attemptMs }),
      d.clock,
    );
  } catch (err) {
    return { statusCode: null, error: 'request failed', detail: (err as Error).message, retryAfterMs: null, durationMs: 0 };
  }
}

/** What attempt `attemptNo` comes to: a 2xx is delivered; 410 or the last retry failed; else a retry after the schedule's wait (or Retry-After). */
function judgeAttempt(result: SendResult, attemptNo: number): { outcome: 'delivered' | 'retry' | 'failed'; gone: boolean; waitMs: number } {
  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  const gone = result.statusCode === 410;
  const lastTry = attemptNo > RETRY_DELAYS_MS.length;
  const outcome = ok ? 'delivered' : gone || lastTry ? 'failed' : 'retry';
  const waitMs = Math.min(MAX_RETRY_AFTER_MS, Math.max(RETRY_DELAYS_MS[attemptNo - 1] ?? 0, result.retryAfterMs ?? 0));
  return { outcome, gone, waitMs };
}
