import type { Config } from '../config.ts';
import { findDrawOffer, findGame, type GameRecord } from '../db/games.ts';
import { renewLeases } from '../db/liveGames.ts';
import { MoveWriter } from '../db/moveWriter.ts';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import type { LiveGame, Seat } from './liveGame.ts';

export type Publish = (channel: string, message: string) => void;

/** The presence channel every node's stream endpoints listen on for a game's events. */
export const gameChannel = (gameId: string) => `game:${gameId}`;

/**
 * What the live games of one process share: the group-commit writer, the bulk lease renewal,
 * the event publisher and a few reads. One per process.
 */
export class LiveGameHost {
  readonly writer: MoveWriter;
  private readonly games = new Map<string, LiveGame>();
  private renewTimer: NodeJS.Timeout | undefined;
  private publisher: Publish = () => {};

  constructor(
    readonly pool: Pool,
    readonly config: Config,
    readonly log: Logger,
    /** This process's identity in the games' `host` column. */
    public hostId: string,
  ) {
    this.writer = new MoveWriter(pool);
  }

  setPublisher(publish: Publish): void {
    this.publisher = publish;
  }

  publish(gameId: string, event: object): void {
    this.publisher(gameChannel(gameId), JSON.stringify(event));
  }

  register(game: LiveGame): void {
    this.games.set(game.id, game);
    this.renewTimer ??= setInterval(() => void this.renewAll(), Math.max(200, this.config.gameLeaseMs / 3));
  }

  unregister(game: LiveGame): void {
    if (this.games.get(game.id) === game) this.games.delete(game.id);
    if (this.games.size === 0 && this.renewTimer) {
      clearInterval(this.renewTimer);
      this.renewTimer = undefined;
    }
  }

  get size(): number {
    return this.games.size;
  }

  /** One statement renews every lease of this process; games that lost theirs are told. */
  async renewAll(): Promise<void> {
    const live = [...this.games.values()].filter((g) => g.status === 'active');
    try {
      const kept = await renewLeases(this.pool, live.map((g) => ({ gameId: g.id, epoch: g.epoch })), this.config.gameLeaseMs);
      for (const g of live) if (!kept.has(g.id) && g.status === 'active') g.markLost();
    } catch (err) {
      // The database is unreachable: keep the games; their leases lapse if this lasts.
      this.log.warn({ err }, 'lease renewal failed');
    }
  }

  close(): void {
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
  }

  findGame(id: string): Promise<GameRecord | undefined> {
    return findGame(this.pool, id);
  }

  findDrawOffer(gameId: string, offerId: string) {
    return findDrawOffer(this.pool, gameId, offerId);
  }

  /** Both players with their usernames and ratings at game start. */
  async seats(record: GameRecord): Promise<{ white: Seat; black: Seat }> {
    const { rows } = await this.pool.query('SELECT id, username FROM users WHERE id = ANY($1::uuid[])', [
      [record.whiteId, record.blackId],
    ]);
    const name = (id: string | null) => rows.find((r) => r.id === id)?.username ?? '';
    return {
      white: { id: record.whiteId!, username: name(record.whiteId), rating: record.whiteRating ?? 1500 },
      black: { id: record.blackId!, username: name(record.blackId), rating: record.blackRating ?? 1500 },
    };
  }
}
