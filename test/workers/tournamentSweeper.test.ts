import assert from 'node:assert/strict';
import type { Pool } from '../../src/db/pool.ts';
import { createLogger } from '../../src/logger.ts';
import { channels } from '../../src/services/channelEvents.ts';
import { TournamentActor } from '../../src/services/tournamentActor.ts';
import { tendTournaments } from '../../src/services/tournamentSchedule.ts';
import { startSweeper, type Sweeper } from '../../src/workers/sweeper.ts';
import { arenaFixture, type ArenaFixture } from '../helpers/arena.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';
import { until } from '../helpers/poll.ts';

/**
 * Two nodes' sweepers over one database, on one manual clock: whichever looks first hosts a due
 * tournament, and it starts once. The sweepers tick on that clock, every second as in the
 * service; `sweep()` has every node sweep once more and waits for it, which proves that a sweep
 * found nothing to do without waiting in real time.
 */
describe('The sweeper hosts tournaments', function () {
  this.timeout(20_000);
  let db: { pool: Pool; drop: () => Promise<void> };
  let arena: ArenaFixture;
  let running: Sweeper[] = [];

  before(async () => {
    db = await isolatedDatabase();
  });
  after(() => db.drop());
  beforeEach(async () => {
    arena = await arenaFixture(db.pool);
  });
  afterEach(async () => {
    for (const sweeper of running) await sweeper.stop();
    running = [];
    await arena.close();
  });

  const sweepers = (nodes: string[]) => {
    for (const node of nodes) {
      running.push(
        startSweeper({
          pool: db.pool,
          log: createLogger('silent'),
          clock: arena.clock,
          openGame: async () => false,
          openTournament: async (id) => (await arena.open(id, node)) instanceof TournamentActor,
          tendTournaments: () => tendTournaments(arena.ctx),
        }),
      );
    }
  };
  const row = async (id: string) =>
    (await db.pool.query('SELECT status, starts_at, started_at, ends_at, finished_at, host, host_epoch FROM tournaments WHERE id = $1', [id])).rows[0];
  /** Every node sweeps once more, after whatever it was doing. */
  const sweep = async () => {
    for (const sweeper of running) sweeper.kick();
    for (const sweeper of running) await sweeper.idle();
  };
  const startedEvents = async (id: string) =>
    (await db.pool.query(`SELECT user_ids FROM outbox WHERE topic = 'tournament.started' AND payload->'tournament'->>'id' = $1`, [id])).rows;

  it('starts a tournament at its starts_at, not a millisecond before, once, on one of two racing nodes', async () => {
    const id = await arena.tournament({ startsIn: 60_000 });
    const players = await arena.players(id, [undefined, undefined, undefined]);
    sweepers(['node-a', 'node-b']);
    const startsAt = (await row(id)).starts_at.getTime();
    await arena.clock.advance(startsAt - 1 - arena.clock.now());
    // Both nodes sweep one millisecond early: nothing starts.
    await sweep();
    assert.equal((await row(id)).status, 'upcoming');
    await arena.clock.advance(1);
    await sweep();
    const started = await until('started', async () => ((await row(id)).status === 'running' ? row(id) : undefined), { ms: 5000 });
    assert.equal(started.started_at.getTime(), startsAt, 'started by the first sweep that found it due');
    assert.ok(['node-a', 'node-b'].includes(started.host));
    // Both nodes sweep again: still one start, one tournament.started for the three players.
    await sweep();
    const events = await startedEvents(id);
    assert.equal(events.length, 1);
    assert.deepEqual([...events[0].user_ids].sort(), [...players].sort());
    assert.equal((await row(id)).host_epoch, started.host_epoch, 'nobody took it over');
  });

  it('hosts a running tournament again when its host stopped renewing the lease', async () => {
    const id = await arena.tournament();
    await arena.players(id, [1500, 1500]);
    let lost = false;
    await arena.host(id, 'node-dead', { lost: () => (lost = true) });
    // The host is gone (no renewal): its lease lapses; a live node's sweeper takes the tournament.
    await db.pool.query(`UPDATE tournaments SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    sweepers(['node-live']);
    await until('hosted again', async () => (await row(id)).host === 'node-live', { ms: 5000 });
    await arena.beat();
    assert.equal(lost, true, 'the old actor learnt at its next step that it lost the tournament');
  });

  it('starts an arena with fewer than two players at its starts_at without an actor: tournament.started to its player, once', async () => {
    const id = await arena.tournament({ startsIn: 60_000 });
    const [player] = await arena.players(id, [undefined]);
    const channel = await arena.listen(channels.user(player));
    sweepers(['node-a', 'node-b']);
    const startsAt = (await row(id)).starts_at.getTime();
    await arena.clock.advance(startsAt - arena.clock.now());
    await sweep();
    const started = await until('started', async () => ((await row(id)).status === 'running' ? row(id) : undefined), { ms: 5000 });
    assert.equal(started.started_at.getTime(), startsAt);
    await sweep();
    assert.deepEqual([(await row(id)).host, (await row(id)).host_epoch], [null, 0], 'no node ever took a lease: no actor');
    const events = await startedEvents(id);
    assert.deepEqual(events.map((e) => e.user_ids), [[player]]);
    assert.deepEqual(channel.filter((m) => m.type === 'tournament_started').map((m) => m.tournament.id), [id]);
  });

  it('finishes an arena without an actor at its ends_at, standings and status told on its channel', async () => {
    const id = await arena.tournament({ minutes: 1 });
    await arena.players(id, [undefined]);
    const channel = await arena.listen(channels.tournament(id));
    sweepers(['node-a', 'node-b']);
    await until('running', async () => (await row(id)).status === 'running', { ms: 5000 });
    const endsAt = (await row(id)).ends_at.getTime();
    await arena.clock.advance(endsAt - 1 - arena.clock.now());
    await sweep();
    assert.equal((await row(id)).status, 'running', 'not a millisecond before ends_at');
    await arena.clock.advance(1);
    await sweep();
    const finished = await until('finished', async () => ((await row(id)).status === 'finished' ? row(id) : undefined), { ms: 5000 });
    assert.equal(finished.finished_at.getTime(), endsAt);
    assert.equal(finished.host_epoch, 0);
    await sweep();
    assert.deepEqual(channel.filter((m) => m.type === 'status').map((m) => m.status), ['running', 'finished']);
    assert.equal(channel.filter((m) => m.type === 'standings').length, 1);
  });

  it('gives a running arena its actor when its second player joins, not before, and the actor pairs them', async () => {
    const id = await arena.tournament();
    await arena.players(id, [undefined]);
    sweepers(['node-a', 'node-b']);
    await until('running', async () => (await row(id)).status === 'running', { ms: 5000 });
    await sweep();
    assert.equal((await row(id)).host, null, 'one player: no actor');
    await arena.players(id, [undefined]);
    await sweep();
    await until('hosted', async () => (await row(id)).host !== null, { ms: 5000 });
    await until('paired', async () => (await arena.activeGames(id)).length === 1, { ms: 5000 });
  });

  it('does not host again an arena whose host died once nothing is left to do (players gone, games counted)', async () => {
    const id = await arena.tournament({ minutes: 1 });
    const players = await arena.players(id, [undefined, undefined]);
    await arena.host(id, 'node-dead');
    const [g] = await arena.activeGames(id);
    for (const p of players) await arena.service.withdraw(p, id);
    await arena.finish(g.id, 'white');
    await arena.beat();
    assert.equal((await arena.activeGames(id)).length, 0);
    await db.pool.query(`UPDATE tournaments SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    sweepers(['node-live']);
    await sweep();
    assert.equal((await row(id)).host, 'node-dead', 'nobody took it over');
    await arena.clock.advance((await row(id)).ends_at.getTime() - arena.clock.now());
    await sweep();
    await until('finished', async () => (await row(id)).status === 'finished', { ms: 5000 });
  });
});
