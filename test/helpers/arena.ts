import assert from 'node:assert/strict';
import { LocalPresence } from '@colyseus/core';
import type { Config } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import type { Pool } from '../../src/db/pool.ts';
import { insertTournament } from '../../src/db/tournaments.ts';
import { createEventBus, type Channel } from '../../src/events.ts';
import { createLogger } from '../../src/logger.ts';
import { GameActor } from '../../src/services/gameActor.ts';
import { LiveGameHost } from '../../src/services/liveGameHost.ts';
import { TournamentActor, type TournamentListener } from '../../src/services/tournamentActor.ts';
import { createTournaments } from '../../src/services/tournaments.ts';
import { ManualClock } from './clock.ts';
import { insertUser } from '../support/fixtures.ts';
import { testService } from './service.ts';

/**
 * An arena on a database of its own, driven by a manual clock: the tournament actor with the
 * real live games (GameActor on the same clock and database) in place of the game rooms, and a
 * real in-process event bus whose channels the test listens to. Several actors may run at once,
 * as several nodes would.
 */
export async function arenaFixture(pool: Pool, config: Partial<Config> = {}) {
  const { config: base } = await testService();
  const clock = new ManualClock(Date.now());
  const events = createEventBus();
  events.attach(new LocalPresence());
  const ctx = {
    config: { ...base, gameLeaseMs: 15_000, firstMoveMs: 30_000, ...config },
    log: createLogger('silent'),
    pool,
    redis: undefined,
    events,
    clock,
  } as unknown as AppContext;
  const gameHost = new LiveGameHost(pool, ctx.config, ctx.log, 'game-node', clock);
  /** The live game of each game the actor created (opened as the gateway would open its room). */
  const games = new Map<string, GameActor>();
  const openGame = async (gameId: string) => {
    const live = await GameActor.open(gameHost, gameId);
    if (live instanceof GameActor) games.set(gameId, live);
    return live instanceof GameActor;
  };
  const actors: TournamentActor[] = [];
  // The tests host arenas themselves (`host`, or a sweeper they start): a join opens nothing.
  const service = createTournaments(ctx, { openTournament: async () => false });

  /** What a channel carried, in order. */
  async function listen<Event>(channel: Channel<Event>): Promise<Event[]> {
    const seen: Event[] = [];
    await events.subscribe(channel, (m) => seen.push(m));
    return seen;
  }

  return {
    ctx,
    clock,
    games,
    service,
    listen,
    /** A tournament starting at `startsIn` ms from now, lasting `minutes`. */
    async tournament(o: { startsIn?: number; minutes?: number; rated?: boolean; maxPlayers?: number } = {}): Promise<string> {
      const startsAt = new Date(clock.now() + (o.startsIn ?? 0));
      return insertTournament(pool, {
        name: 'Test Arena',
        creatorId: await insertUser(pool),
        timeControl: 'blitz',
        initialTime: 300,
        increment: 0,
        rated: o.rated ?? true,
        startsAt,
        endsAt: new Date(startsAt.getTime() + (o.minutes ?? 60) * 60_000),
        maxPlayers: o.maxPlayers ?? null,
        createdAt: new Date(clock.now()),
      });
    },
    /** New users with these ratings in blitz (1500 for undefined), joined to the tournament. */
    async players(tournamentId: string, ratings: Array<number | undefined>): Promise<string[]> {
      const ids: string[] = [];
      for (const rating of ratings) {
        const id = await insertUser(pool);
        if (rating !== undefined) {
          await pool.query(`INSERT INTO user_ratings (user_id, category, rating, rd, volatility) VALUES ($1, 'blitz', $2, 80, 0.06)`, [id, rating]);
        }
        await service.join(id, tournamentId);
        // Joins a millisecond apart: the order of joining is the order given.
        clock.skip(1);
        ids.push(id);
      }
      return ids;
    },
    async open(tournamentId: string, node = 'node-a', listener: Partial<TournamentListener> = {}): Promise<TournamentActor | 'not_active' | 'lease_held'> {
      const actor = await TournamentActor.open(ctx, tournamentId, node, { openGame }, listener);
      if (actor instanceof TournamentActor) actors.push(actor);
      return actor;
    },
    /** Opens the actor, which must take the tournament, and lets its first round run. */
    async host(tournamentId: string, node = 'node-a', listener: Partial<TournamentListener> = {}): Promise<TournamentActor> {
      const actor = await this.open(tournamentId, node, listener);
      assert.ok(actor instanceof TournamentActor, `could not host: ${String(actor)}`);
      await actor.idle();
      return actor;
    },
    /**
     * One beat of the actors' clock (a pairing pass, a game's deadline), then every step it caused
     * has run: the games' commands (a deadline's abort writes to PostgreSQL after the timer fired),
     * then the arenas'.
     */
    async beat(ms = 2000): Promise<void> {
      await clock.advance(ms);
      for (const g of games.values()) await g.idle();
      for (const a of actors) await a.idle();
    },
    /** The active games of the tournament, as [white, black, gameId]. */
    async activeGames(tournamentId: string): Promise<Array<{ white: string; black: string; id: string }>> {
      const { rows } = await pool.query(
        `SELECT id, white_id, black_id FROM games WHERE tournament_id = $1 AND status = 'active' ORDER BY created_at, id`,
        [tournamentId],
      );
      return rows.map((r) => ({ id: r.id, white: r.white_id, black: r.black_id }));
    },
    /** Ends a live game: `winner` wins by resignation, or a draw by agreement. */
    async finish(gameId: string, result: 'white' | 'black' | 'draw'): Promise<void> {
      const live = games.get(gameId);
      assert.ok(live, `game ${gameId} is not open`);
      const white = live.seat('white').id;
      const black = live.seat('black').id;
      if (result === 'draw') {
        assert.equal((await live.execute({ type: 'offer_draw', userId: white })).ok, true);
        assert.equal((await live.execute({ type: 'offer_draw', userId: black })).ok, true);
      } else {
        const reply = await live.execute({ type: 'resign', userId: result === 'white' ? black : white });
        assert.equal(reply.ok, true, JSON.stringify(reply));
      }
      assert.equal(live.status, 'finished');
    },
    async standings(tournamentId: string) {
      return (await service.standings(tournamentId, { page: 1, limit: 100 })).standings;
    },
    async close(): Promise<void> {
      for (const a of actors) await a.close();
      for (const g of games.values()) await g.close(false);
      gameHost.close();
    },
  };
}

export type ArenaFixture = Awaited<ReturnType<typeof arenaFixture>>;
