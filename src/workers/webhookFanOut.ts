import { listMoves, type MoveRecord } from '../db/games.ts';
import { withTransaction, type Pool, type Queryable } from '../db/pool.ts';
import * as repo from '../db/webhooks.ts';
import { ChessGame } from '../domain/game.ts';
import { seconds } from '../domain/liveGameViews.ts';
import type { Clock } from '../time.ts';

/** game.finished's place among a game's events: after every move. */
const LAST_SEQ = 2 ** 31;
const MAX_BOARDS = 1000;

/** What turning events into deliveries needs. */
export type FanOutDeps = {
  pool: Pool;
  clock: Clock;
  /** The game detail for a game.started event's `data.game`. */
  gameDetail: (gameId: string) => Promise<unknown>;
  /** Pending deliveries an endpoint may hold; events past it are stored failed, not queued. */
  maxPending: number;
  /** The boards of followed games, kept between passes. */
  boards: MoveBoards;
};

/** New outbox rows → one delivery per subscribed endpoint, in the transaction that marks them done. */
export async function fanOutOutbox(d: FanOutDeps): Promise<void> {
  await withTransaction(d.pool, async (tx) => {
    const rows = await repo.claimOutbox(tx, 100);
    if (rows.length === 0) return;
    const deliveries: repo.NewDelivery[] = [];
    for (const row of rows) {
      if (row.topic === 'game.started' && row.gameId) await repo.openMoveFeed(tx, row.gameId, row.userIds, 1);
      // A game's end goes after its last moves: those are fanned out first, in this transaction.
      if (row.topic === 'game.finished' && row.gameId) {
        const feed = await repo.lockMoveFeed(tx, row.gameId);
        if (feed) deliveries.push(...(await fanOutFeed(d, tx, feed)));
      }
      const endpoints = await repo.subscribedWebhooks(tx, row.userIds, row.topic);
      if (endpoints.length === 0) continue;
      const body = JSON.stringify({ type: row.topic, timestamp: row.createdAt.toISOString(), data: await eventData(d, row) });
      // The events of one game reach an endpoint in order: started, its moves by ply, finished.
      const order = row.gameId ? { orderKey: `game:${row.gameId}`, seq: row.topic === 'game.finished' ? LAST_SEQ : 0 } : { orderKey: null, seq: 0 };
      for (const e of endpoints) deliveries.push({ webhookId: e.id, event: row.topic, body, ...order });
    }
    await repo.insertDeliveries(tx, deliveries, new Date(d.clock.now()), d.maxPending);
    await repo.markOutboxProcessed(tx, rows.map((r) => r.id));
  });
}

/** An outbox row's `data` as the receiver gets it. */
async function eventData(d: Pick<FanOutDeps, 'gameDetail'>, row: repo.OutboxRow): Promise<unknown> {
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
export async function fanOutMoves(d: FanOutDeps): Promise<void> {
  await withTransaction(d.pool, async (tx) => {
    const deliveries: repo.NewDelivery[] = [];
    for (const feed of await repo.claimMoveFeeds(tx, 50)) deliveries.push(...(await fanOutFeed(d, tx, feed)));
    await repo.insertDeliveries(tx, deliveries, new Date(d.clock.now()), d.maxPending);
  });
}

/** One delivery per endpoint and move after the feed's cursor; moves the cursor on (or closes the feed). */
async function fanOutFeed(d: FanOutDeps, tx: Queryable, feed: repo.MoveFeed): Promise<repo.NewDelivery[]> {
  const endpoints = await repo.subscribedWebhooks(tx, [feed.whiteId, feed.blackId], 'game.move');
  // With the board of the last pass, only the new moves are read; else all, to replay it.
  const warm = d.boards.isWarm(feed);
  const moves = await listMoves(tx, feed.gameId, warm ? feed.nextPly : 1);
  const board = d.boards.at(feed, warm ? [] : moves.slice(0, feed.nextPly - 1));
  const fresh = warm ? moves : moves.slice(feed.nextPly - 1);
  const deliveries: repo.NewDelivery[] = [];
  for (const m of fresh) {
    const data = play(board, feed.gameId, m);
    const body = JSON.stringify({ type: 'game.move', timestamp: m.createdAt.toISOString(), data });
    // Ordered by the game's event number, not the ply: after a takeback (DESIGN 2.11) the new
    // moves reuse the plies it freed and must still go after the taken-back ones already queued.
    const seq = m.eventSeq ?? m.ply;
    for (const e of endpoints) deliveries.push({ webhookId: e.id, event: 'game.move', body, orderKey: `game:${feed.gameId}`, seq });
  }
  // A feed ends with its game (every move fanned out), or when nobody follows it any more.
  const open = feed.active && endpoints.length > 0;
  await repo.advanceMoveFeed(tx, feed.gameId, feed.nextPly + fresh.length, open);
  if (!open) d.boards.forget(feed.gameId);
  return deliveries;
}

type Board = { game: ChessGame; clocks: { white: number; black: number } };

/** The boards of followed games, kept between passes (the least recently used dropped past MAX_BOARDS). */
export class MoveBoards {
  private readonly boards = new Map<string, Board>();

  /** The kept board stands where the feed's cursor is: only the new moves need reading. */
  isWarm(feed: repo.MoveFeed): boolean {
    return this.boards.get(feed.gameId)?.game.moveCount === feed.nextPly - 1;
  }

  /** The game's board after ply nextPly − 1: kept from the last pass, else replayed from `before` (its earlier moves). */
  at(feed: repo.MoveFeed, before: MoveRecord[]): Board {
    let board = this.boards.get(feed.gameId);
    if (!board || board.game.moveCount !== feed.nextPly - 1) {
      board = { game: new ChessGame(), clocks: { white: feed.initialMs, black: feed.initialMs } };
      for (const m of before) play(board, feed.gameId, m);
    }
    this.boards.delete(feed.gameId); // re-inserted last: the map's order is the order of use
    this.boards.set(feed.gameId, board);
    if (this.boards.size > MAX_BOARDS) this.boards.delete(this.boards.keys().next().value!);
    return board;
  }

  forget(gameId: string): void {
    this.boards.delete(gameId);
  }
}

/** Plays a stored move on the board; its game.move data (DESIGN 2.8). */
function play(board: Board, gameId: string, m: MoveRecord) {
  const played = board.game.play({ from: m.uci.slice(0, 2), to: m.uci.slice(2, 4), promotion: m.uci[4] ?? null });
  if (!played.ok) throw new Error(`game ${gameId}: stored move ${m.uci} is illegal`);
  board.clocks[m.ply % 2 === 1 ? 'white' : 'black'] = m.clockMs;
  return {
    game_id: gameId,
    move: played.value.move,
    fen: played.value.fen,
    move_count: m.ply,
    times: { white: seconds(board.clocks.white), black: seconds(board.clocks.black) },
  };
}
