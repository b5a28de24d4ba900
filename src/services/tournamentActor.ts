import { randomInt } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { lockPlayers } from '../db/games.ts';
import { withTransaction, type Pool } from '../db/pool.ts';
import { cancelOpenSeeksOf } from '../db/seeks.ts';
import * as play from '../db/tournamentPlay.ts';
import { findStandingsPage } from '../db/tournaments.ts';
import { countEnded, performanceRating } from '../domain/arena.ts';
import { pairArena } from '../domain/arenaPairing.ts';
import { channels } from './channelEvents.ts';
import { Timers } from './timers.ts';
import { Mailbox, type NotHosted } from './actor.ts';
import { formatStanding, STANDINGS_SHOWN, type TournamentEvent } from './tournamentViews.ts';
import type { LobbyEvent } from './seekViews.ts';
import { userNotifier, type UserNotifier } from './userEvents.ts';
import { emit } from './webhooks.ts';

/** DESIGN 2.10: waiting players are paired every 2 s. */
export const PAIRING_INTERVAL_MS = 2000;
/** Ended games counted per transaction (a round's worth in a big arena). */
const COUNT_BATCH = 500;
/** Game rooms opened at once after a round (each takes its game's lease and loads it). */
const OPEN_CONCURRENCY = 32;

/** What the actor measures about itself (`/metrics`), when asked. */
export type TournamentObserver = {
  /** How long a phase of a pass took, wall time (count, pair, finish). */
  phase?: (phase: 'count' | 'pair' | 'finish', seconds: number) => void;
  /** Games counted into the standings (aborted ones included). */
  counted?: (games: number) => void;
  /** Players seated in a round, and how long each had waited (ms). */
  paired?: (waitsMs: number[]) => void;
};

export type TournamentActorDeps = {
  /** Opens the room of a game the actor created (the gateway's openGame), before its players are told. */
  openGame: (gameId: string) => Promise<unknown>;
  /**
   * Connections of the actors' own (default: the service's pool): a round's steps then never
   * queue behind a burst of requests for connections, which is when rounds matter most.
   */
  pool?: Pool;
  observe?: TournamentObserver;
};

type Lost = 'lost';
const LOST: Lost = 'lost';

/**
 * Who hears an arena's actor: its room, given when the actor is opened (an actor that ends while
 * it opens tells it before `open` returns).
 */
export type TournamentListener = {
  /** Another node took the tournament over (this one's lease lapsed): the room must go. */
  lost(): void;
  /** The tournament finished: the room may go. */
  finished(): void;
};

const UNHEARD: TournamentListener = { lost: () => {}, finished: () => {} };

/**
 * The actor of one arena (DESIGN 2.10), free of Colyseus. It holds the tournament's lease (a
 * node at a time; every write fenced by the epoch) and, one step at a time: starts the
 * tournament when it is due, counts each ended game into the standings, pairs the players who
 * wait every 2 s until `ends_at`, and finishes the tournament when the last game has ended.
 * Everything it knows is in PostgreSQL: standings are rows kept from the games' results (a game
 * is counted in the transaction that marks it counted), so an actor rebuilt on another node after
 * a crash counts what the dead one had not and goes on from there.
 */
export class TournamentActor {

  private readonly mailbox = new Mailbox((err) => this.ctx.log.warn({ err, tournamentId: this.t.id }, 'tournament step failed'));
  private readonly timers: Timers<'pass' | 'renew' | 'end'>;
  private readonly notify: UserNotifier;
  /** Rooms being opened and players being told after a round, awaited on close. */
  private readonly seating = new Set<Promise<void>>();
  private done = false;
  private readonly db: Pool;
  /** A pass waits in the mailbox: a beat that comes meanwhile adds none (slow passes do not pile up). */
  private passQueued = false;

  private constructor(
    private readonly ctx: AppContext,
    private readonly deps: TournamentActorDeps,
    private readonly listener: TournamentListener,
    private readonly t: play.HostedTournament,
  ) {
    this.timers = new Timers(ctx.clock);
    this.notify = userNotifier(ctx);
    this.db = deps.pool ?? ctx.pool;
  }

  /**
   * Takes the tournament's lease (it must be running, or due to start) and starts it if it has
   * not started yet. 'not_active': nothing to host (not due yet, or finished); 'lease_held':
   * another node hosts it.
   */
  static async open(
    ctx: AppContext,
    id: string,
    hostId: string,
    deps: TournamentActorDeps,
    listener: Partial<TournamentListener> = {},
  ): Promise<TournamentActor | NotHosted> {
    const now = new Date(ctx.clock.now());
    const hosted = await play.acquireTournamentLease(deps.pool ?? ctx.pool, id, hostId, ctx.config.gameLeaseMs, now);
    if (!hosted) return (await play.isHostable(deps.pool ?? ctx.pool, id, now)) ? 'lease_held' : 'not_active';
    const actor = new TournamentActor(ctx, deps, { ...UNHEARD, ...listener }, hosted);
    if (hosted.status === 'upcoming') await actor.exclusive(() => actor.start());
    else void actor.exclusive(() => actor.retell());
    if (actor.done) return 'lease_held';
    actor.arm();
    // The first round at once: players who joined before the start wait for nothing.
    actor.queuePass();
    return actor;
  }

  get id(): string {
    return this.t.id;
  }

  /** Resolves once every step queued so far has run (tests drive the actor on a manual clock). */
  async idle(): Promise<void> {
    await this.mailbox.idle();
    await Promise.all(this.seating);
  }

  /** Stops; the lease is released unless it was lost or the tournament finished (it has none then). */
  async close(): Promise<void> {
    const wasDone = this.done;
    this.done = true;
    this.timers.clearAll();
    await this.idle();
    if (!wasDone) await play.releaseTournamentLease(this.db, this.t.id, this.t.hostEpoch).catch(() => {});
  }

  // ---- the steps ---------------------------------------------------------------------------

  private arm(): void {
    const { clock, config } = this.ctx;
    this.timers.every('pass', PAIRING_INTERVAL_MS, () => this.queuePass());
    this.timers.every('renew', Math.max(200, config.gameLeaseMs / 3), () => void this.renew());
    // A pass at ends_at itself: pairing stops then, and an arena with no game going ends at once.
    const untilEnd = this.t.endsAt.getTime() - clock.now();
    if (untilEnd > 0) this.timers.once('end', untilEnd, () => this.queuePass());
  }

  private queuePass(): void {
    if (this.passQueued) return;
    this.passQueued = true;
    void this.exclusive(() => {
      this.passQueued = false;
      return this.pass();
    });
  }

  private async renew(): Promise<void> {
    if (this.done) return;
    try {
      if (!(await play.renewTournamentLease(this.db, this.t.id, this.t.hostEpoch, this.ctx.config.gameLeaseMs))) this.lose();
    } catch (err) {
      // The database is unreachable: keep going; the lease lapses if this lasts.
      this.ctx.log.warn({ err, tournamentId: this.t.id }, 'tournament lease renewal failed');
    }
  }

  /** upcoming → running: tournament.started to every participant's webhooks (outbox) and user channel. */
  private async start(): Promise<void> {
    const now = this.ctx.clock.now();
    const started = {
      tournament: { id: this.t.id, name: this.t.name, starts_at: this.t.startsAt.toISOString() },
    };
    const players = await withTransaction(this.db, async (tx): Promise<string[] | Lost> => {
      const row = await play.fenceTournament(tx, this.t.id, this.t.hostEpoch);
      if (!row) return LOST;
      if (row.status !== 'upcoming') return [];
      const joined = await play.markStarted(tx, this.t.id, new Date(now));
      if (joined.length > 0) await emit(tx, 'tournament.started', joined, started);
      return joined;
    });
    if (players === LOST) return this.lose();
    this.t.status = 'running';
    for (const userId of players) this.notify(userId, { type: 'tournament_started', ...started });
    this.announce({ type: 'status', status: 'running' });
  }

  /**
   * Taking a running arena over: the players of its games that have not begun are told their
   * pairing again (the node that paired them may have died before it told them). A player told
   * twice joins the same game.
   */
  private async retell(): Promise<void> {
    const games = await play.listUnbegunGames(this.db, this.t.id);
    const names = new Map(games.flatMap((g) => [[g.white.userId, g.white.username], [g.black.userId, g.black.username]] as const));
    this.seat(games.map((g) => ({ whiteId: g.white.userId, blackId: g.black.userId, gameId: g.gameId })), names);
  }

  /** One beat: count what ended, then pair who waits (before ends_at) or finish (after, once all ended). */
  private async pass(): Promise<void> {
    if (this.done) return;
    if ((await this.timed('count', () => this.count())) === LOST) return this.lose();
    if (this.ctx.clock.now() < this.t.endsAt.getTime()) {
      if ((await this.timed('pair', () => this.pair())) === LOST) return this.lose();
    } else if ((await this.timed('finish', () => this.finishIfOver())) === LOST) {
      return this.lose();
    }
  }

  /**
   * Counts the games that ended since the last pass, in the order they ended, into the players'
   * rows (DESIGN 2.10 scoring, with the fire rule), in one transaction that also marks them
   * counted: a game is counted once, whichever node counts it. An aborted game scores nothing
   * and withdraws the player who did not move.
   */
  private async count(): Promise<number | Lost> {
    let total = 0;
    for (;;) {
      const counted = await withTransaction(this.db, async (tx): Promise<number | Lost> => {
        if (!(await play.fenceTournament(tx, this.t.id, this.t.hostEpoch))) return LOST;
        const ended = await play.listEndedUncounted(tx, this.t.id, COUNT_BATCH);
        if (ended.length === 0) return 0;
        const records = await play.findRecords(tx, this.t.id, ended.flatMap((g) => [g.whiteId, g.blackId]));
        const counting = countEnded(records, ended);
        const updates = [...counting.records].map(([userId, r]) => ({
          ...r,
          userId,
          performance: performanceRating(r),
          waitingSince: new Date(r.waitingSince),
        }));
        await play.saveCount(tx, this.t.id, {
          records: updates,
          games: counting.points.map((p) => ({ gameId: p.gameId, whitePoints: p.white, blackPoints: p.black })),
          withdraw: counting.withdraw,
          now: new Date(this.ctx.clock.now()),
        });
        return ended.length;
      });
      if (counted === LOST) return LOST;
      total += counted;
      if (counted < COUNT_BATCH) break;
    }
    if (total > 0) {
      this.deps.observe?.counted?.(total);
      await this.publishStandings();
    }
    return total;
  }

  /**
   * A round: the waiting players paired by DESIGN's rule, their games created in one transaction
   * under the players' locks (each re-checked free and still joined, so nobody is ever seated
   * twice, whichever actor or pool seats them), then each game's room opened and its players told.
   */
  private async pair(): Promise<number | Lost> {
    const waiting = await play.listWaiting(this.db, this.t.id, this.t.timeControl);
    if (waiting.length < 2) return 0;
    const names = new Map(waiting.map((w) => [w.userId, w.username]));
    const pairs = pairArena(waiting, () => randomInt(2) === 0);
    if (pairs.length === 0) return 0;
    const seated = await withTransaction(this.db, async (tx) => {
      const row = await play.fenceTournament(tx, this.t.id, this.t.hostEpoch);
      if (!row) return LOST;
      const now = this.ctx.clock.now();
      if (row.status !== 'running' || now >= row.endsAt.getTime()) return undefined;
      const ids = pairs.flatMap((p) => [p.white.userId, p.black.userId]);
      await lockPlayers(tx, ids);
      const ratings = await play.seatable(tx, this.t.id, ids, this.t.timeControl);
      const kept = pairs.filter((p) => ratings.has(p.white.userId) && ratings.has(p.black.userId));
      if (kept.length === 0) return undefined;
      const keptIds = kept.flatMap((p) => [p.white.userId, p.black.userId]);
      const gameIds = await play.insertPairings(
        tx,
        this.t,
        kept.map((p) => ({
          whiteId: p.white.userId,
          blackId: p.black.userId,
          whiteRating: ratings.get(p.white.userId)!,
          blackRating: ratings.get(p.black.userId)!,
        })),
        { firstMoveDeadline: new Date(now + this.ctx.config.firstMoveMs), now: new Date(now) },
      );
      // A player who starts a game stops seeking, as on every other way into a game.
      const cancelledSeeks = await cancelOpenSeeksOf(tx, keptIds);
      return { now, kept, gameIds, cancelledSeeks };
    });
    if (seated === LOST) return LOST;
    if (!seated) return 0;
    const { now, kept, gameIds, cancelledSeeks } = seated;
    for (const id of cancelledSeeks) {
      const removed: LobbyEvent = { type: 'seek_removed', id, reason: 'cancelled' };
      this.ctx.events.publish(channels.lobby, { ...removed, ts: now });
    }
    this.deps.observe?.paired?.(kept.flatMap((p) => [now - p.white.waitingSince, now - p.black.waitingSince]));
    this.seat(kept.map((p, i) => ({ whiteId: p.white.userId, blackId: p.black.userId, gameId: gameIds[i] })), names);
    return kept.length;
  }

  /**
   * Opens each new game's room, then tells its players (`tournament_pairing` on their channels,
   * `pairing` on the tournament's): a client told of its game can join the room at once. Runs
   * beside the actor's steps; a room that fails to open now is opened by the next request for
   * it or by the sweeper, and the players are told all the same.
   */
  private seat(games: Array<{ whiteId: string; blackId: string; gameId: string }>, names: Map<string, string>): void {
    const who = (userId: string) => ({ id: userId, username: names.get(userId) ?? '' });
    const queue = [...games];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { gameId } = next;
        await this.deps.openGame(gameId).catch((err) => this.ctx.log.warn({ err, gameId }, 'could not open a tournament game'));
        const white = who(next.whiteId);
        const black = who(next.blackId);
        const base = { type: 'tournament_pairing', tournament_id: this.t.id, game_id: gameId } as const;
        this.notify(white.id, { ...base, color: 'white', opponent: black });
        this.notify(black.id, { ...base, color: 'black', opponent: white });
        this.announce({ type: 'pairing', game_id: gameId, white, black });
      }
    };
    const run = Promise.all(Array.from({ length: Math.min(OPEN_CONCURRENCY, queue.length) }, worker)).then(() => {});
    this.seating.add(run);
    void run.finally(() => this.seating.delete(run));
  }

  /** After ends_at: finished once no game of it is left uncounted (the count just ran). */
  private async finishIfOver(): Promise<boolean | Lost> {
    if ((await play.countUncounted(this.db, this.t.id)) > 0) return false;
    const finished = await withTransaction(this.db, async (tx) => {
      const row = await play.fenceTournament(tx, this.t.id, this.t.hostEpoch);
      if (!row) return LOST;
      if (row.status !== 'running' || (await play.countUncounted(tx, this.t.id)) > 0) return false;
      await play.markFinished(tx, this.t.id, new Date(this.ctx.clock.now()));
      return true;
    });
    if (finished !== true) return finished;
    this.done = true;
    this.timers.clearAll();
    this.t.status = 'finished';
    await this.publishStandings();
    this.announce({ type: 'status', status: 'finished' });
    this.listener.finished();
    return true;
  }

  private async publishStandings(): Promise<void> {
    // One snapshot: the total agrees with the standings it comes with.
    const page = await findStandingsPage(this.db, this.t.id, { limit: STANDINGS_SHOWN, offset: 0 });
    if (page) this.announce({ type: 'standings', standings: page.standings.map(formatStanding), standings_total: page.total });
  }

  private announce(event: TournamentEvent): void {
    this.ctx.events.publish(channels.tournament(this.t.id), { ...event, ts: this.ctx.clock.now() });
  }

  private lose(): void {
    if (this.done) return;
    this.done = true;
    this.timers.clearAll();
    this.ctx.log.info({ tournamentId: this.t.id }, 'tournament taken over by another node');
    this.listener.lost();
  }

  private async timed<T>(phase: 'count' | 'pair' | 'finish', step: () => Promise<T>): Promise<T> {
    // A metric of the work done (real time), not a time of the tournament.
    const started = performance.now();
    try {
      return await step();
    } finally {
      this.deps.observe?.phase?.(phase, (performance.now() - started) / 1000);
    }
  }

  private exclusive<T>(step: () => Promise<T>): Promise<T> {
    return this.mailbox.run(step);
  }
}
