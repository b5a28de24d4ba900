import type { Config } from '../config.ts';
import { findGame, type GameRecord } from '../db/games.ts';
import { endLeases, renewLeases } from '../db/liveGames.ts';
import { MoveWriter, writeDeadlineMs } from '../db/moveWriter.ts';
import type { Pool } from '../db/pool.ts';
import { findPlayers } from '../db/users.ts';
import type { PlayerRecord } from '../db/games.ts';
import type { Logger } from '../logger.ts';
import { systemClock, type Clock } from '../time.ts';
import type { Seat } from '../domain/liveGameViews.ts';
import type { GameHosting, GameActor } from './gameActor.ts';
import { Timers } from './timers.ts';

import type { PublishedEvent } from './gameEvents.ts';

/** Where a game's events go: its `game:<id>` channel and replay buffer (src/services/gameEvents.ts). */
export type Publish = (gameId: string, event: PublishedEvent) => void;

const HAND_BACK_RETRY_MS = 250;

/**
 * Leases renewed per statement. A renewal holds the row locks of its games until it commits, and
 * a move batch of one of them waits for that: one statement for 1,000 games held them for tens of
 * milliseconds every renewal, a tail on move acknowledgement (`npm run bench`). In chunks of this
 * size a move waits at most for one chunk.
 */
export const RENEW_CHUNK = 100;

/**
 * What the live games of one process share: the group-commit writer, the bulk lease renewal,
 * the event publisher and a few reads. One per process.
 */
export class LiveGameHost implements GameHosting {
  readonly writer: MoveWriter;
  private readonly games = new Map<string, GameActor>();
  /** The lease renewal, on the service's clock: armed while this process hosts a game. */
  private readonly timers: Timers<'renew'>;
  private renewing = false;
  /** Games given up by this node whose leases are still to be ended (gameId → epoch). */
  private readonly givenUp = new Map<string, number>();
  private handBackTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    readonly pool: Pool,
    readonly config: Config,
    readonly log: Logger,
    /** This process's identity in the games' `host` column. */
    public hostId: string,
    readonly time: Clock = systemClock,
    /** Where the games' events go: their channel and replay buffer (none in tests that need none). */
    private readonly publisher: Publish = () => {},
  ) {
    this.writer = new MoveWriter(pool, { clock: time, deadlineMs: writeDeadlineMs(config.gameLeaseMs), commitWindowMs: config.moveCommitWindowMs });
    this.timers = new Timers(time);
  }

  publish(gameId: string, event: PublishedEvent): void {
    this.publisher(gameId, event);
  }

  /** A game came to be hosted here (the computer player looks whether it is its turn). */
  onHosted: (gameId: string) => void = () => {};

  register(game: GameActor): void {
    this.games.set(game.id, game);
    this.onHosted(game.id);
    if (this.renewing) return;
    this.renewing = true;
    // On the service's clock, as the arena's lease is (wall time but in tests, whose manual clock
    // renews as it moves on). The lease itself runs out on PostgreSQL's clock, which every node shares.
    this.timers.every('renew', Math.max(200, this.config.gameLeaseMs / 3), () => void this.renewAll());
  }

  unregister(game: GameActor): void {
    if (this.games.get(game.id) === game) this.games.delete(game.id);
    if (this.games.size === 0 && this.renewing) {
      this.timers.clear('renew');
      this.renewing = false;
    }
  }

  get size(): number {
    return this.games.size;
  }

  /** The game, when this process hosts it (owned or not: ask it). */
  find(gameId: string): GameActor | undefined {
    return this.games.get(gameId);
  }

  /** Called after every renewal round with its duration (ms) and the leases it renewed: the metrics' histogram. */
  onRenewal: (ms: number, games: number) => void = () => {};

  /**
   * Renews every lease of this process, RENEW_CHUNK games a statement, one statement after
   * another; games that lost theirs are told. A game
   * whose move write has been outstanding past the writer's deadline is left out and told too:
   * this node cannot make its moves durable, so its lease must lapse for another node to take it.
   */
  async renewAll(): Promise<void> {
    const overdue = this.writer.overdue();
    const active = [...this.games.values()].filter((g) => g.status === 'active' && g.owned);
    for (const g of active.filter((g) => overdue.has(g.id))) {
      this.log.warn({ gameId: g.id }, 'move write outstanding past its deadline; giving the game up');
      g.markLost();
    }
    const live = active.filter((g) => !overdue.has(g.id));
    // The round's duration is the database's work, a metric in real time, not a time of the games.
    const started = performance.now();
    for (let i = 0; i < live.length; i += RENEW_CHUNK) {
      const chunk = live.slice(i, i + RENEW_CHUNK);
      const renewedAt = this.time.now();
      try {
        const leases = chunk.map((g) => ({ gameId: g.id, epoch: g.epoch }));
        const kept = await renewLeases(this.pool, leases, this.config.gameLeaseMs, new Date(this.time.now()));
        for (const g of chunk) {
          if (kept.has(g.id)) g.leaseRenewed(renewedAt);
          else if (g.status === 'active') g.markLost();
        }
      } catch (err) {
        // The database is unreachable: keep the games; their leases lapse if this lasts.
        this.log.warn({ err }, 'lease renewal failed');
        break;
      }
    }
    this.onRenewal(performance.now() - started, live.length);
  }

  /**
   * A game this node gave up because a write failed (PostgreSQL restarting) goes back to
   * PostgreSQL: its lease is ended as soon as the database answers, so the next request or sweep
   * hosts it again at once (here or elsewhere) instead of after GAME_LEASE_SECONDS. Its epoch
   * fences the ending: a lease another node took meanwhile is left alone.
   */
  handBack(gameId: string, epoch: number): void {
    if (this.closed) return;
    this.givenUp.set(gameId, epoch);
    this.handBackTimer ??= setTimeout(() => void this.endGivenUpLeases(), 0);
  }

  // Node's timers, not the clock: these retries wait for PostgreSQL (a real process) to answer
  // again; no time of the game depends on them.
  private async endGivenUpLeases(): Promise<void> {
    const batch = [...this.givenUp].map(([gameId, epoch]) => ({ gameId, epoch }));
    try {
      await endLeases(this.pool, batch);
      for (const l of batch) if (this.givenUp.get(l.gameId) === l.epoch) this.givenUp.delete(l.gameId);
    } catch (err) {
      this.log.debug({ err }, 'leases of given-up games not ended yet');
    }
    this.handBackTimer = this.givenUp.size && !this.closed ? setTimeout(() => void this.endGivenUpLeases(), HAND_BACK_RETRY_MS) : undefined;
  }

  close(): void {
    this.closed = true;
    this.timers.clearAll();
    this.renewing = false;
    clearTimeout(this.handBackTimer);
    this.handBackTimer = undefined;
  }

  findGame(id: string): Promise<GameRecord | undefined> {
    return findGame(this.pool, id);
  }

  /** Both players: their seats (usernames and ratings at game start) and profiles (the detail view's). */
  async seats(record: GameRecord): Promise<{ seats: { white: Seat; black: Seat }; players: { white: PlayerRecord; black: PlayerRecord } }> {
    const found = await findPlayers(this.pool, [record.whiteId!, record.blackId!]);
    const player = (id: string): PlayerRecord => found.get(id) ?? { id, username: '', avatarUrl: null, country: null };
    const white = player(record.whiteId!);
    const black = player(record.blackId!);
    return {
      seats: {
        white: { id: white.id, username: white.username, rating: record.whiteRating ?? 1500 },
        black: { id: black.id, username: black.username, rating: record.blackRating ?? 1500 },
      },
      players: { white, black },
    };
  }
}
