import { randomInt } from 'node:crypto';
import type { AppContext } from '../context.ts';
import * as games from '../db/games.ts';
import { withTransaction, type Queryable } from '../db/pool.ts';
import * as seeks from '../db/seeks.ts';
import type { OpenSeek } from '../db/seeks.ts';
import { poolId, type PoolKey } from '../domain/pairing.ts';
import type { TimeControl } from '../domain/timeControl.ts';
import { AppError } from '../errors.ts';
import { Timers } from './timers.ts';
import { Mailbox } from './actor.ts';
import { assignColors, findPartner, pairWaiting, type Seek, type SeekColor } from '../domain/pairing.ts';
import { channels } from './channelEvents.ts';
import { openGame, type RoomResult } from '../gateway/index.ts';
import { fail, ok } from '../result.ts';
import { formatSeek, type LobbyEvent } from './seekViews.ts';
import { gameStatusChanged } from './gameEvents.ts';
import { emitGameStarted } from './webhooks.ts';
import { userNotifier, type UserNotifier } from './userEvents.ts';
import { botPlaysChallengesOnly } from './bots.ts';
import { isBotAccount } from '../db/players.ts';

/**
 * A player with an open seek or an active game may not seek, nor may a bot (DESIGN 2.13): refused
 * before any pool is found or created for them (the pool checks again, under the players' locks,
 * when it pairs).
 */
export async function assertMaySeek(db: Queryable, userId: string, category: TimeControl): Promise<void> {
  const state = await seeks.seekerState(db, userId, category);
  if (state.bot) throw botPlaysChallengesOnly();
  if (state.seeking) throw new AppError('PLAYER_BUSY', 'You already have an open seek');
  if (state.playing) throw new AppError('PLAYER_BUSY', 'You are already playing a game');
}

/** The pool retired (idle) before this command's turn came: nothing was done. */
export class PoolRetired extends Error {
  constructor() {
    super('the seek pool has retired');
  }
}

export type SeekResult = { status: 'active'; gameId: string } | { status: 'pending'; seekId: string; expiresAt: Date };
/** The seek pool room's REST entry point (src/gateway callPool → SeekPoolRoom.apiSeek); undefined: the pool retired, ask its next room. */
export type ApiSeek = (userId: string, color: SeekColor) => Promise<RoomResult<SeekResult> | undefined>;
export type Pairing = { gameId: string; whiteId: string; blackId: string; seekIds: string[] };

const PASS_MS = 1000;

/** Who hears a seek pool: its room, given when the pool is opened. */
export type SeekPoolListener = {
  /** Every pairing (the room hands realtime seekers their seats). */
  paired(p: Pairing): void;
  /** Another node took the pool over (this one's lease was not renewed in time). */
  lost(): void;
  /**
   * Asked, once the pool has had no waiting seek for SEEK_POOL_IDLE_SECONDS, whether it may go:
   * the room answers false while a socket is in it or on its way (and keeps newcomers out when it
   * answers true). Then the pool retires: lease released, `retired` told (the room disposes).
   */
  mayRetire(): Promise<boolean>;
  retired(): void;
};

/** A pool opened with nobody to tell (the REST path opens its room through the gateway). */
const UNHEARD: SeekPoolListener = { paired: () => {}, lost: () => {}, mayRetire: async () => true, retired: () => {} };

/**
 * The actor core of one seek pool (time control, initial, increment, rated): it decides who plays
 * whom, one decision at a time. Seeks are pending games in PostgreSQL, so the pool can be rebuilt
 * anywhere from the database; the in-memory list is a cache, re-read every second (which also
 * picks up cancels and expiries) and widened windows are paired on that beat. Every pairing is
 * one transaction under the players' locks and re-checks that both seeks are still open, so a
 * player can never be seated in two games, whichever node pairs.
 */
export class SeekPoolActor {
  private waiting = new Map<string, OpenSeek>();
  private readonly mailbox = new Mailbox((err) => {
    if (!(err instanceof PoolRetired)) this.ctx.log.warn({ err, pool: this.id }, 'seek pool command failed');
  });
  private readonly timers: Timers<'pass'>;
  private idleSince: number | undefined;
  private readonly notify: UserNotifier;
  private retired = false;

  private constructor(
    private readonly ctx: AppContext,
    private readonly listener: SeekPoolListener,
    readonly key: PoolKey,
    readonly id: string,
    readonly epoch: number,
  ) {
    this.timers = new Timers(ctx.clock);
    this.notify = userNotifier(ctx);
  }

  static async open(ctx: AppContext, key: PoolKey, hostId: string, listener: Partial<SeekPoolListener> = {}): Promise<SeekPoolActor | 'lease_held'> {
    const id = poolId(key);
    const epoch = await seeks.acquirePoolLease(ctx.pool, id, hostId, ctx.config.gameLeaseMs);
    if (epoch === undefined) return 'lease_held';
    const pool = new SeekPoolActor(ctx, { ...UNHEARD, ...listener }, key, id, epoch);
    await pool.exclusive(() => pool.refresh());
    // Each pass judges windows and idleness at the time of its tick, not when its turn comes.
    pool.timers.every('pass', PASS_MS, () => {
      const at = ctx.clock.now();
      void pool.exclusive(() => pool.pass(at));
    });
    return pool;
  }

  get size(): number {
    return this.waiting.size;
  }

  /**
   * A new seek: paired at once with the best waiting one, or left waiting (durably). Throws
   * PoolRetired when the pool has gone idle meanwhile: ask the pool's next room instead.
   */
  seek(userId: string, color: SeekColor): Promise<RoomResult<SeekResult>> {
    return this.exclusive(async () => {
      if (this.retired) throw new PoolRetired();
      const now = this.ctx.clock.now();
      const state = await seeks.seekerState(this.ctx.pool, userId, this.key.timeControl);
      if (state.bot) {
        const e = botPlaysChallengesOnly();
        return fail(e.code, e.message);
      }
      // A player with an open seek or an active game may not seek again (checked again under lock).
      if (state.seeking) return fail('PLAYER_BUSY', 'You already have an open seek');
      if (state.playing) return fail('PLAYER_BUSY', 'You are already playing a game');
      const newcomer: Seek = { id: `new:${userId}`, userId, rating: state.rating, color, since: now };
      for (let partner = findPartner(newcomer, this.candidates(), now); partner; partner = findPartner(newcomer, this.candidates(), now)) {
        const seated = await this.seat(partner, newcomer, undefined);
        if (seated === 'newcomer_busy') return fail('PLAYER_BUSY', 'You already have an open seek or game');
        if (seated === 'gone') this.waiting.delete(partner.id); // cancelled, expired or seated meanwhile
        else return ok({ status: 'active', gameId: seated.gameId });
      }
      const inserted = await this.insertSeek(userId, color);
      if ('ok' in inserted) return inserted;
      this.waiting.set(inserted.id, inserted);
      this.announce({ type: 'seek_added', seek: formatSeek(inserted) });
      return ok({ status: 'pending', seekId: inserted.id, expiresAt: inserted.expiresAt });
    });
  }

  /** A socket came or went: the idle grace starts again. */
  touch(): void {
    this.idleSince = undefined;
  }

  /** The seeker left (socket closed): the seek is cancelled if still open. */
  cancel(seekId: string): Promise<void> {
    return this.exclusive(async () => {
      if (!this.waiting.has(seekId)) return;
      this.waiting.delete(seekId);
      if (await games.abandonPendingGame(this.ctx.pool, seekId, 'cancelled')) {
        this.announce({ type: 'seek_removed', id: seekId, reason: 'cancelled' });
      }
    });
  }

  /** Resolves once every step queued so far has run (tests drive the pool on a manual clock). */
  async idle(): Promise<void> {
    await this.mailbox.idle();
  }

  async close(): Promise<void> {
    this.timers.clearAll();
    await this.idle();
    if (!this.retired) await seeks.releasePoolLease(this.ctx.pool, this.id, this.epoch).catch(() => {});
    this.retired = true;
  }

  // ---- internals --------------------------------------------------------------------------

  private candidates(): Seek[] {
    return [...this.waiting.values()].map(toSeek);
  }

  private async insertSeek(userId: string, color: SeekColor): Promise<OpenSeek | RoomResult<never>> {
    const expiresAt = new Date(this.ctx.clock.now() + this.ctx.config.seekTtlMs);
    const id = await withTransaction(this.ctx.pool, async (tx) => {
      await games.lockPlayers(tx, [userId]);
      // Under the lock a bot upgrade takes too: an account that became a bot since seekerState looked places no seek.
      if (await isBotAccount(tx, userId)) return 'bot' as const;
      if ((await seeks.findOpenSeekOf(tx, userId)) || (await games.userHasOpenGame(tx, userId))) return undefined;
      const game = await games.insertPendingGame(tx, {
        kind: 'matchmaking',
        createdBy: userId,
        // Only the seeker is seated; a random seeker sits at White until paired.
        whiteId: color === 'black' ? null : userId,
        blackId: color === 'black' ? userId : null,
        colorPreference: color,
        timeControl: this.key.timeControl,
        initialTime: this.key.initialTime,
        increment: this.key.increment,
        rated: this.key.rated,
        daysPerMove: null,
        expiresAt,
      });
      return game.id;
    });
    if (id === 'bot') {
      const e = botPlaysChallengesOnly();
      return fail(e.code, e.message);
    }
    const seek = id && (await seeks.findOpenSeek(this.ctx.pool, id));
    return seek || fail('PLAYER_BUSY', 'You already have an open seek or game');
  }

  /**
   * One transaction: both players locked, the game's seek re-checked open, both players free;
   * then the older seek's game starts with both seated and the younger seek (if it is a row)
   * folds into it. A newcomer (`youngerRow` undefined) has no row yet. 'gone' when a waiting seek
   * no longer holds, 'newcomer_busy' when the newcomer got a seek or game elsewhere meanwhile.
   */
  private async seat(older: Seek, younger: Seek, youngerRow: string | undefined): Promise<{ gameId: string } | 'gone' | 'newcomer_busy'> {
    const { white, black } = assignColors(older, younger, () => randomInt(2) === 0);
    const gameId = older.id;
    const outcome = await withTransaction(this.ctx.pool, async (tx): Promise<'started' | 'gone' | 'newcomer_busy'> => {
      await games.lockPlayers(tx, [white.userId, black.userId]);
      // The newcomer may have placed a seek in another pool, or started a game, since seekerState
      // looked (one open seek each, none while playing).
      const playing = await games.playersInActiveGames(tx, [white.userId, black.userId]);
      if (!youngerRow && (playing.has(younger.userId) || (await seeks.findOpenSeekOf(tx, younger.userId)))) {
        return 'newcomer_busy';
      }
      const row = await games.lockGame(tx, gameId);
      if (!row || row.status !== 'pending' || (row.expiresAt && row.expiresAt.getTime() <= this.ctx.clock.now())) return 'gone';
      if (youngerRow) {
        const other = await games.lockGame(tx, youngerRow);
        if (!other || other.status !== 'pending') return 'gone';
      }
      if (playing.size > 0) return 'gone';
      const ratings = await games.findCategoryRatings(tx, [white.userId, black.userId], this.key.timeControl);
      await games.activateGame(tx, gameId, {
        whiteId: white.userId,
        blackId: black.userId,
        whiteRating: ratings.get(white.userId)!,
        blackRating: ratings.get(black.userId)!,
        firstMoveDeadline: new Date(this.ctx.clock.now() + this.ctx.config.firstMoveMs),
        now: new Date(this.ctx.clock.now()),
      });
      if (youngerRow) await seeks.mergeSeekInto(tx, youngerRow, gameId, younger.userId);
      await emitGameStarted(tx, gameId, [white.userId, black.userId]);
      return 'started';
    });
    if (outcome !== 'started') return outcome;
    const seekIds = [gameId, ...(youngerRow ? [youngerRow] : [])];
    for (const id of seekIds) {
      this.waiting.delete(id);
      this.announce({ type: 'seek_removed', id, reason: 'paired' });
      gameStatusChanged(this.ctx, id, 'active'); // a merged seek's stream follows its owner into the game
    }
    for (const s of [older, younger]) {
      this.notify(s.userId, { type: 'game_started', game_id: gameId, ...(s.id !== gameId && !s.id.startsWith('new:') ? { seek_id: s.id } : {}) });
    }
    // The room starts the first-move clock; should it fail now, the sweeper opens it.
    await openGame(gameId).catch((err) => this.ctx.log.warn({ err, gameId }, 'could not open a paired game'));
    this.listener.paired({ gameId, whiteId: white.userId, blackId: black.userId, seekIds });
    return { gameId };
  }

  /** Every second: re-read the pool (cancels, expiries, other writers), then pair widened windows. */
  private async pass(now: number): Promise<void> {
    if (!(await seeks.renewPoolLease(this.ctx.pool, this.id, this.epoch, this.ctx.config.gameLeaseMs))) {
      this.timers.clearAll();
      return this.listener.lost();
    }
    await this.refresh();
    for (const [a, b] of pairWaiting(this.candidates(), now)) {
      const [older, younger] = a.since <= b.since ? [a, b] : [b, a];
      await this.seat(older, younger, younger.id);
    }
    await this.retireIfIdle(now);
  }

  /**
   * A pool nobody uses costs a lease renewal and a read every second: it goes after a grace, so
   * the number of live pools follows the seekers, not every time control anyone ever asked for.
   */
  private async retireIfIdle(now: number): Promise<void> {
    if (this.waiting.size > 0) return void (this.idleSince = undefined);
    this.idleSince ??= now;
    if (now - this.idleSince < this.ctx.config.seekPoolIdleMs) return;
    if (!(await this.listener.mayRetire())) return; // asked again next pass
    this.retired = true;
    this.timers.clearAll();
    await seeks.releasePoolLease(this.ctx.pool, this.id, this.epoch);
    this.listener.retired();
  }

  private async refresh(): Promise<void> {
    const fresh = await seeks.listOpenSeeks(this.ctx.pool, this.key);
    const ids = new Set(fresh.map((s) => s.id));
    for (const [id, s] of this.waiting) {
      if (ids.has(id)) continue;
      this.waiting.delete(id);
      this.announce({ type: 'seek_removed', id, reason: s.expiresAt.getTime() <= this.ctx.clock.now() ? 'expired' : 'cancelled' });
    }
    for (const s of fresh) {
      if (this.waiting.has(s.id)) continue;
      this.waiting.set(s.id, s);
      this.announce({ type: 'seek_added', seek: formatSeek(s) });
    }
  }

  private announce(event: LobbyEvent): void {
    this.ctx.events.publish(channels.lobby, { ...event, ts: this.ctx.clock.now() });
  }

  private exclusive<T>(command: () => Promise<T>): Promise<T> {
    return this.mailbox.run(command);
  }
}

function toSeek(s: OpenSeek): Seek {
  return { id: s.id, userId: s.userId, rating: s.rating, color: s.color, since: s.createdAt.getTime() };
}
