import { listMoves, type MoveRecord } from '../db/games.ts';
import { withTransaction, type Pool, type Queryable } from '../db/pool.ts';
import * as repo from '../db/webhooks.ts';
import { ChessGame } from '../domain/game.ts';
import { seconds } from '../domain/liveGameViews.ts';
import type { Logger } from '../logger.ts';
import { withTimeout, type Clock, type TimerHandle } from '../time.ts';
import { SEND_TIMEOUT_MS, type Send, type SendResult } from './webhookSender.ts';

/** DESIGN 2.7: the waits before each retry; after the last one the endpoint is disabled. */
export const RETRY_DELAYS_MS = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400].map((s) => s * 1000);
/** The longest Retry-After honoured. */
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

type Board = { game: ChessGame; clocks: { white: number; black: number } };
/** game.finished's place among a game's events: after every move. */
const LAST_SEQ = 2 ** 31;
const MAX_BOARDS = 1000;
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
  const maxInFlight = d.maxInFlight ?? 32;
  const perOwner = d.perOwner ?? IN_FLIGHT_PER_OWNER;
  const maxPending = d.maxPending ?? MAX_PENDING_PER_ENDPOINT;
  const attemptMs = (d.attemptTimeoutMs ?? SEND_TIMEOUT_MS) + BACKSTOP_MS;
  const lockMs = d.lockMs ?? attemptMs + CLAIM_MARGIN_MS;
  if (lockMs <= attemptMs) throw new Error(`webhook claims (${lockMs} ms) must outlive an attempt (${attemptMs} ms)`);
  const sending = new Set<Promise<void>>();
  const boards = new Map<string, Board>(); // the boards of followed games, kept between passes
  let stopped = false;
  let timer: TimerHandle | undefined;
  let running: Promise<void> | undefined;

  let again = false;
  /** A pass is asked for at once (its timer is due) and has not started. */
  let dueNow = false;
  const schedule = () => {
    if (stopped) return;
    d.clock.clearTimeout(timer);
    timer = d.clock.setTimeout(pass, again ? 0 : (d.pollMs ?? 250));
    dueNow = again;
    again = false;
  };
  /** Another pass as soon as this one ends: a delivery finished, so the next of its game may go. */
  const soon = () => {
    if (running) again = true;
    else if (!stopped) {
      d.clock.clearTimeout(timer);
      timer = d.clock.setTimeout(pass, 0);
      dueNow = true;
    }
  };
  const pass = () => {
    if (running) return;
    dueNow = false;
    running = (async () => {
      try {
        await fanOutOutbox();
        await fanOutMoves();
        await deliverDue();
      } catch (err) {
        d.log.warn({ err }, 'webhook pass failed');
      }
    })().finally(() => {
      running = undefined;
      schedule();
    });
  };

  async function fanOutOutbox(): Promise<void> {
    await withTransaction(d.pool, async (tx) => {
      const rows = await repo.claimOutbox(tx, 100);
      if (rows.length === 0) return;
      const deliveries: repo.NewDelivery[] = [];
      for (const row of rows) {
        if (row.topic === 'game.started' && row.gameId) await repo.openMoveFeed(tx, row.gameId, row.userIds, 1);
        // A game's end goes after its last moves: those are fanned out first, in this transaction.
        if (row.topic === 'game.finished' && row.gameId) {
          const feed = await repo.lockMoveFeed(tx, row.gameId);
          if (feed) deliveries.push(...(await fanOutFeed(tx, feed)));
        }
        const endpoints = await repo.subscribedWebhooks(tx, row.userIds, row.topic);
        if (endpoints.length === 0) continue;
        const body = JSON.stringify({ type: row.topic, timestamp: row.createdAt.toISOString(), data: await dataOf(row) });
        // The events of one game reach an endpoint in order: started, its moves by ply, finished.
        const order = row.gameId ? { orderKey: `game:${row.gameId}`, seq: row.topic === 'game.finished' ? LAST_SEQ : 0 } : { orderKey: null, seq: 0 };
        for (const e of endpoints) deliveries.push({ webhookId: e.id, event: row.topic, body, ...order });
      }
      await repo.insertDeliveries(tx, deliveries, new Date(d.clock.now()), maxPending);
      await repo.markOutboxProcessed(tx, rows.map((r) => r.id));
    });
  }

  async function dataOf(row: repo.OutboxRow): Promise<unknown> {
    const p = row.payload;
    switch (row.topic) {
      case 'game.started':
        return { game: await d.gameDetail(row.gameId!) };
      case 'game.finished':
        return { game_id: p.game_id, result: p.result, winner: p.winner, termination: p.termination, rating_changes: p.rating_changes };
      default:
        return p;
    }
  }

  /** game.move: the committed moves of followed games after each feed's cursor. */
  async function fanOutMoves(): Promise<void> {
    await withTransaction(d.pool, async (tx) => {
      const deliveries: repo.NewDelivery[] = [];
      for (const feed of await repo.claimMoveFeeds(tx, 50)) deliveries.push(...(await fanOutFeed(tx, feed)));
      await repo.insertDeliveries(tx, deliveries, new Date(d.clock.now()), maxPending);
    });
  }

  /** One delivery per endpoint and move after the feed's cursor; moves the cursor on (or closes the feed). */
  async function fanOutFeed(tx: Queryable, feed: repo.MoveFeed): Promise<repo.NewDelivery[]> {
    const endpoints = await repo.subscribedWebhooks(tx, [feed.whiteId, feed.blackId], 'game.move');
    // With the board of the last pass, only the new moves are read; else all, to replay it.
    const warm = boards.get(feed.gameId)?.game.moveCount === feed.nextPly - 1;
    const moves = await listMoves(tx, feed.gameId, warm ? feed.nextPly : 1);
    const board = boardAt(feed, warm ? [] : moves.slice(0, feed.nextPly - 1));
    const fresh = warm ? moves : moves.slice(feed.nextPly - 1);
    const deliveries: repo.NewDelivery[] = [];
    for (const m of fresh) {
      const data = play(board, feed.gameId, m);
      const body = JSON.stringify({ type: 'game.move', timestamp: m.createdAt.toISOString(), data });
      for (const e of endpoints) deliveries.push({ webhookId: e.id, event: 'game.move', body, orderKey: `game:${feed.gameId}`, seq: m.ply });
    }
    // A feed ends with its game (every move fanned out), or when nobody follows it any more.
    const open = feed.active && endpoints.length > 0;
    await repo.advanceMoveFeed(tx, feed.gameId, feed.nextPly + fresh.length, open);
    if (!open) boards.delete(feed.gameId);
    return deliveries;
  }

  /** The game's board after ply nextPly − 1: kept from the last pass, else replayed from `before` (its earlier moves). */
  function boardAt(feed: repo.MoveFeed, before: MoveRecord[]): Board {
    let board = boards.get(feed.gameId);
    if (!board || board.game.moveCount !== feed.nextPly - 1) {
      board = { game: new ChessGame(), clocks: { white: feed.initialMs, black: feed.initialMs } };
      for (const m of before) play(board, feed.gameId, m);
    }
    boards.delete(feed.gameId); // re-inserted last: the map's order is the order of use
    boards.set(feed.gameId, board);
    if (boards.size > MAX_BOARDS) boards.delete(boards.keys().next().value!);
    return board;
  }

  /** Plays a stored move on the board; its game.move data (DESIGN 2.8). */
  function play(board: Board, gameId: string, m: MoveRecord) {
    const played = board.game.play({ from: m.uci.slice(0, 2), to: m.uci.slice(2, 4), promotion: m.uci[4] ?? null });
    if (!played.ok) throw new Error(`game ${gameId}: stored move ${m.uci} is illegal`);
    board.clocks[m.ply % 2 === 1 ? 'white' : 'black'] = m.clockMs;
    return {
      game_id: gameId,
      move: played.move,
      fen: played.fen,
      move_count: m.ply,
      times: { white: seconds(board.clocks.white), black: seconds(board.clocks.black) },
    };
  }

  async function deliverDue(): Promise<void> {
    const free = maxInFlight - sending.size;
    if (free <= 0) return;
    const claimed = await repo.claimDeliveries(d.pool, { now: new Date(d.clock.now()), limit: free, perOwner, lockMs });
    for (const c of claimed) {
      const work = attempt(c).finally(() => {
        sending.delete(work);
        soon();
      });
      sending.add(work);
    }
  }

  async function attempt(c: repo.ClaimedDelivery): Promise<void> {
    const at = new Date(d.clock.now());
    let result: SendResult;
    try {
      result = await withTimeout(
        d.send({ url: c.url, id: `msg_${c.id}`, body: c.body, secret: c.secret, at }),
        attemptMs,
        (): SendResult => ({ statusCode: null, error: 'timed out', detail: `the send did not settle within ${attemptMs} ms`, retryAfterMs: null, durationMs: attemptMs }),
        d.clock,
      );
    } catch (err) {
      result = { statusCode: null, error: 'request failed', detail: (err as Error).message, retryAfterMs: null, durationMs: 0 };
    }
    // The owner sees the coarse error; what really happened (names, addresses) is ours.
    if (result.detail) d.log.info({ delivery: c.id, webhook: c.webhookId, error: result.error, detail: result.detail }, 'webhook attempt got no answer');
    const attemptNo = c.attempts + 1;
    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const gone = result.statusCode === 410;
    const lastTry = attemptNo > RETRY_DELAYS_MS.length;
    const outcome = ok ? 'delivered' : gone || lastTry ? 'failed' : 'retry';
    const wait = Math.min(MAX_RETRY_AFTER_MS, Math.max(RETRY_DELAYS_MS[attemptNo - 1] ?? 0, result.retryAfterMs ?? 0));
    const recorded = await repo
      .recordAttempt(d.pool, {
        deliveryId: c.id,
        attempt: attemptNo,
        statusCode: result.statusCode,
        error: result.error,
        durationMs: Math.round(result.durationMs),
        outcome,
        nextAttemptAt: outcome === 'retry' ? new Date(d.clock.now() + wait) : null,
      })
      .catch((err) => (d.log.warn({ err, delivery: c.id }, 'webhook attempt not recorded'), false));
    if (!recorded) return;
    d.observe?.(outcome, result.durationMs);
    if (outcome === 'failed') {
      await repo.disableWebhook(d.pool, c.webhookId, gone ? 'the receiver answered 410 Gone' : 'every retry failed').catch(() => {});
    }
  }

  schedule();
  return {
    kick: soon,
    async idle() {
      for (;;) {
        if (dueNow && !stopped) {
          // The pass asked for at once runs now rather than when the clock fires its timer.
          d.clock.clearTimeout(timer);
          pass();
        }
        if (running) await running;
        else if (sending.size) await Promise.allSettled(sending);
        else return;
      }
    },
    async stop() {
      stopped = true;
      d.clock.clearTimeout(timer);
      await running;
      await Promise.all(sending);
    },
  };
}
