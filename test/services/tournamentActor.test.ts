import assert from 'node:assert/strict';
import type { Pool } from '../../src/db/pool.ts';
import { recompute } from '../../src/domain/arena.ts';
import { channels } from '../../src/services/channelEvents.ts';
import { TournamentActor } from '../../src/services/tournamentActor.ts';
import { arenaFixture, type ArenaFixture } from '../helpers/arena.ts';
import { isolatedDatabase } from '../helpers/isolated.ts';

/**
 * The tournament actor alone, on a database of its own and a manual clock: real live games stand
 * where the game rooms would be, so games end as players end them (resign, draw, no first move).
 */
describe('TournamentActor (the arena actor) against PostgreSQL', function () {
  this.timeout(20_000);
  let db: { pool: Pool; drop: () => Promise<void> };
  let arena: ArenaFixture;

  before(async () => {
    db = await isolatedDatabase();
  });
  after(() => db.drop());
  beforeEach(async () => {
    arena = await arenaFixture(db.pool);
  });
  afterEach(() => arena.close());

  const sql = async (text: string, params: unknown[]) => (await db.pool.query(text, params)).rows;
  const tournamentRow = async (id: string) => (await sql('SELECT status, started_at, finished_at, player_count, host, host_epoch FROM tournaments WHERE id = $1', [id]))[0];
  const pairOf = (g: { white: string; black: string }) => [g.white, g.black].sort().join();
  const pair = (a: string, b: string) => [a, b].sort().join();
  /** The result in which `userId` wins game `g`. */
  const winFor = (g: { white: string }, userId: string) => (g.white === userId ? 'white' : 'black');

  describe('starting', () => {
    it('is not hosted before starts_at, and starts at it: status, started_at, tournament.started to each participant', async () => {
      const id = await arena.tournament({ startsIn: 60_000 });
      const players = await arena.players(id, [undefined, undefined]);
      const userChannels = await Promise.all(players.map((p) => arena.listen(channels.user(p))));
      assert.equal(await arena.open(id), 'not_active');
      assert.equal((await tournamentRow(id)).status, 'upcoming');

      await arena.clock.advance(60_000);
      const startsAt = arena.clock.now();
      await arena.host(id);
      const row = await tournamentRow(id);
      assert.equal(row.status, 'running');
      assert.equal(row.started_at.getTime(), startsAt);
      const outbox = await sql(`SELECT user_ids, payload FROM outbox WHERE topic = 'tournament.started' AND payload->'tournament'->>'id' = $1`, [id]);
      assert.equal(outbox.length, 1);
      assert.deepEqual([...outbox[0].user_ids].sort(), [...players].sort());
      assert.deepEqual(outbox[0].payload, { tournament: { id, name: 'Test Arena', starts_at: new Date(startsAt - 2).toISOString() } });
      for (const seen of userChannels) {
        assert.deepEqual(seen.filter((m) => m.type === 'tournament_started').map((m) => m.tournament.id), [id]);
      }
    });

    it('starts once when two nodes race for it: one takes the lease, the other is refused', async () => {
      const id = await arena.tournament();
      await arena.players(id, [undefined, undefined, undefined]);
      const [a, b] = await Promise.all([arena.open(id, 'node-a'), arena.open(id, 'node-b')]);
      const results = [a, b].map((x) => (x instanceof TournamentActor ? 'actor' : x)).sort();
      assert.deepEqual(results, ['actor', 'lease_held']);
      const outbox = await sql(`SELECT count(*)::int AS n FROM outbox WHERE topic = 'tournament.started' AND payload->'tournament'->>'id' = $1`, [id]);
      assert.equal(outbox[0].n, 1);
    });

    it('gives the tournament up when closed (a graceful shutdown): another node hosts it at once', async () => {
      const id = await arena.tournament();
      await arena.players(id, [undefined, undefined]);
      const first = await arena.host(id, 'node-a');
      await first.close();
      const next = await arena.open(id, 'node-b');
      assert.ok(next instanceof TournamentActor, String(next));
      assert.equal((await tournamentRow(id)).host, 'node-b');
    });

    it('is not hosted with fewer than two players in (nobody to pair), and is once the second joins', async () => {
      const id = await arena.tournament();
      const [first] = await arena.players(id, [undefined]);
      assert.equal(await arena.open(id), 'not_active');
      const [second] = await arena.players(id, [undefined]);
      await arena.service.withdraw(second, id);
      assert.equal(await arena.open(id), 'not_active', 'a withdrawn player does not count');
      await arena.players(id, [undefined]);
      await arena.host(id);
      assert.equal((await tournamentRow(id)).status, 'running');
      assert.ok(pairOf((await arena.activeGames(id))[0]).includes(first));
    });

    it('pairs the players who joined before the start at once', async () => {
      const id = await arena.tournament();
      await arena.players(id, [1600, 1500, 1400, 1300]);
      await arena.host(id);
      assert.equal((await arena.activeGames(id)).length, 2);
    });
  });

  describe('pairing', () => {
    it('pairs by rating while scores are equal, then by score: winners meet winners', async () => {
      const id = await arena.tournament();
      const [a, b, c, d] = await arena.players(id, [1800, 1700, 1600, 1500]);
      await arena.host(id);
      const first = await arena.activeGames(id);
      assert.deepEqual(first.map(pairOf).sort(), [pair(a, b), pair(c, d)].sort());
      // B beats A, C beats D: B and C have 2 points, A and D none.
      for (const g of first) await arena.finish(g.id, winFor(g, pairOf(g).includes(b) ? b : c));
      await arena.beat();
      const second = await arena.activeGames(id);
      // By rating alone it would be A–C and B–D; by score it is B–C and A–D.
      assert.deepEqual(second.map(pairOf).sort(), [pair(b, c), pair(a, d)].sort());
    });

    it('never pairs the same two in a row while a third waits, but does when they are the only two', async () => {
      const id = await arena.tournament();
      const [a, b, c] = await arena.players(id, [1600, 1500, 1400]);
      await arena.host(id);
      // Three wait: the one who joined last sits out.
      let games = await arena.activeGames(id);
      assert.deepEqual(games.map(pairOf), [pair(a, b)]);
      await arena.finish(games[0].id, 'draw');
      await arena.beat();
      games = await arena.activeGames(id);
      assert.equal(games.length, 1);
      assert.notEqual(pairOf(games[0]), pair(a, b), 'A and B just played each other while C waited');
      assert.ok(pairOf(games[0]).includes(c));

      // A two-player arena: they play each other again and again.
      const duo = await arena.tournament();
      const [x, y] = await arena.players(duo, [1500, 1500]);
      await arena.host(duo);
      for (let round = 0; round < 3; round++) {
        const [g] = await arena.activeGames(duo);
        assert.equal(pairOf(g), pair(x, y));
        await arena.finish(g.id, 'white');
        await arena.beat();
      }
    });

    it('alternates colours: the player who had White gets Black next', async () => {
      const id = await arena.tournament();
      const [x, y] = await arena.players(id, [1500, 1500]);
      await arena.host(id);
      const whites: string[] = [];
      for (let round = 0; round < 4; round++) {
        const [g] = await arena.activeGames(id);
        whites.push(g.white);
        await arena.finish(g.id, 'draw');
        await arena.beat();
      }
      // Even after two games: the coin decides the third, the fourth evens it again.
      assert.notEqual(whites[0], whites[1]);
      assert.notEqual(whites[2], whites[3]);
      assert.deepEqual(new Set(whites), new Set([x, y]));
    });

    it('tells both players their game (colour, opponent) and the tournament channel the pairing, after the game is open', async () => {
      const id = await arena.tournament();
      const [a, b] = await arena.players(id, [1600, 1500]);
      const [userA, userB, channel] = await Promise.all([arena.listen(channels.user(a)), arena.listen(channels.user(b)), arena.listen(channels.tournament(id))]);
      await arena.host(id);
      const [g] = await arena.activeGames(id);
      const told = (seen: any[]) => seen.find((m) => m.type === 'tournament_pairing');
      const colorOf = (u: string) => (g.white === u ? 'white' : 'black');
      const name = async (u: string) => (await sql('SELECT username FROM users WHERE id = $1', [u]))[0].username;
      assert.deepEqual(
        { ...told(userA), ts: 0 },
        { type: 'tournament_pairing', tournament_id: id, game_id: g.id, color: colorOf(a), opponent: { id: b, username: await name(b) }, ts: 0 },
      );
      assert.equal(told(userB).color, colorOf(b));
      const pairing = channel.find((m) => m.type === 'pairing');
      assert.ok(pairing, 'no pairing message');
      assert.deepEqual(pairing.white, { id: g.white, username: await name(g.white) });
      assert.equal(pairing.game_id, g.id);
      assert.ok(arena.games.has(g.id), 'the game was opened before anyone was told');
      // The game is an ordinary active game with both seated and the first-move deadline running.
      const game = (await sql('SELECT kind, status, rated, first_move_deadline, tournament_id FROM games WHERE id = $1', [g.id]))[0];
      assert.deepEqual({ ...game, first_move_deadline: game.first_move_deadline.getTime() }, {
        kind: 'tournament', status: 'active', rated: true, tournament_id: id, first_move_deadline: arena.clock.now() + 30_000,
      });
    });

    it('pairs a player who joins while the tournament runs in the next round', async () => {
      const id = await arena.tournament();
      const [a, b] = await arena.players(id, [1500, 1500]);
      await arena.host(id);
      const [g] = await arena.activeGames(id);
      const [late] = await arena.players(id, [1500]);
      await arena.finish(g.id, 'white');
      await arena.beat();
      const [next] = await arena.activeGames(id);
      assert.ok(pairOf(next).includes(late), 'the late joiner plays');
      assert.ok([a, b].some((p) => pairOf(next).includes(p)));
    });

    it('with three waiting, pairs the late joiner with the loser of the last game and leaves its winner out (closest scores)', async () => {
      const id = await arena.tournament();
      await arena.players(id, [1500, 1500]);
      await arena.host(id);
      const [g] = await arena.activeGames(id);
      const [late] = await arena.players(id, [1500]);
      await arena.finish(g.id, 'white');
      await arena.beat();
      const [next] = await arena.activeGames(id);
      assert.equal(pairOf(next), pair(late, g.black), 'the two with 0 points meet; the winner (2) waits');
    });
  });

  describe('scoring', () => {
    it('scores wins 2, draws 1, and on fire (after two wins in a row) wins 4 and draws 2; a draw puts the fire out', async () => {
      // Casual: the opponents' ratings stay 1500, so the performance is plain to check.
      const id = await arena.tournament({ rated: false });
      const [a, b] = await arena.players(id, [1500, 1500]);
      const channel = await arena.listen(channels.tournament(id));
      await arena.host(id);
      // A: win, win, win (on fire: 4), draw (on fire: 2, fire out), win (2). B: loses, draws once (1).
      for (const result of ['a', 'a', 'a', 'draw', 'a'] as const) {
        const [g] = await arena.activeGames(id);
        await arena.finish(g.id, result === 'draw' ? 'draw' : winFor(g, a));
        await arena.beat();
      }
      const points = await sql(
        `SELECT CASE WHEN white_id = $2 THEN white_points ELSE black_points END AS a FROM tournament_games WHERE tournament_id = $1 AND counted_at IS NOT NULL ORDER BY counted_at`,
        [id, a],
      );
      assert.deepEqual(points.map((p) => p.a), [2, 2, 4, 2, 2]);
      const standings = await arena.standings(id);
      assert.deepEqual(
        standings.map((s) => [s.user.id, s.rank, s.score, s.games, s.wins, s.draws, s.losses, s.streak]),
        [
          [a, 1, 12, 5, 4, 1, 0, 1],
          [b, 2, 1, 5, 0, 1, 4, 0],
        ],
      );
      // 1500 opponents: A's performance 1500 + 500 × 4 / 5 = 1900, B's 1500 − 500 × 4 / 5 = 1100.
      assert.deepEqual(standings.map((s) => s.performance), [1900, 1100]);
      // A standings message after each counted game, the last one as the rows are now.
      const messages = channel.filter((m) => m.type === 'standings');
      assert.equal(messages.length, 5);
      const last = messages.at(-1)!;
      assert.deepEqual(last.standings, standings);
      assert.equal(last.standings_total, 2);
    });

    it('counts a game that ended while no actor ran, once, when the next one takes over (crash between end and count)', async () => {
      const id = await arena.tournament();
      const [a] = await arena.players(id, [1500, 1500]);
      let lost = false;
      await arena.host(id, 'node-a', { lost: () => (lost = true) });
      const [g] = await arena.activeGames(id);
      // node-a dies: its lease lapses; the game ends meanwhile (its room lived elsewhere).
      await db.pool.query(`UPDATE tournaments SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
      await arena.finish(g.id, winFor(g, a));
      const second = await arena.host(id, 'node-b');
      const standings = await arena.standings(id);
      assert.deepEqual(standings.map((s) => [s.user.id, s.score, s.games]), [[a, 2, 1], [standings[1].user.id, 0, 1]]);
      // The old actor's next step is fenced out: it stops, counting nothing twice.
      await arena.beat();
      assert.equal(lost, true);
      const counted = await sql('SELECT count(*)::int AS n FROM tournament_games WHERE tournament_id = $1 AND counted_at IS NOT NULL', [id]);
      assert.equal(counted[0].n, 1);
      assert.equal((await arena.standings(id))[0].games, 1);
      assert.ok(second instanceof TournamentActor);
      assert.equal((await tournamentRow(id)).host, 'node-b');
    });

    it('tells the players of a game not begun their pairing again when another node takes over (the first may have died first)', async () => {
      const id = await arena.tournament();
      const [a, b] = await arena.players(id, [1500, 1500]);
      await arena.host(id, 'node-a');
      const [g] = await arena.activeGames(id);
      const [userA, userB] = await Promise.all([arena.listen(channels.user(a)), arena.listen(channels.user(b))]);
      await db.pool.query(`UPDATE tournaments SET lease_expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
      await arena.host(id, 'node-b');
      for (const seen of [userA, userB]) {
        assert.deepEqual(seen.filter((m) => m.type === 'tournament_pairing').map((m) => m.game_id), [g.id]);
      }
      assert.equal((await arena.activeGames(id)).length, 1, 'no new game for them: the same one');
    });

    it('keeps standings equal to a recomputation from the counted games, in order (rows are derived, not remembered)', async () => {
      const id = await arena.tournament();
      const players = await arena.players(id, [1900, 1700, 1650, 1500, 1450, 1300]);
      await arena.host(id);
      const results = ['white', 'black', 'draw', 'white', 'white', 'black', 'draw', 'white', 'black', 'white'] as const;
      let n = 0;
      for (let round = 0; round < 4; round++) {
        for (const g of await arena.activeGames(id)) await arena.finish(g.id, results[n++ % results.length]);
        await arena.beat();
      }
      const games = await sql(
        `SELECT g.white_id, g.black_id, g.winner, g.white_rating, g.black_rating FROM tournament_games t JOIN games g ON g.id = t.game_id
          WHERE t.tournament_id = $1 AND t.counted_at IS NOT NULL ORDER BY g.finished_at, g.id`,
        [id],
      );
      assert.ok(games.length >= 10);
      const expected = recompute(
        players,
        games.map((g) => ({ whiteId: g.white_id, blackId: g.black_id, winner: g.winner, whiteRating: g.white_rating, blackRating: g.black_rating })),
      );
      const rows = await sql('SELECT user_id, score, games, wins, draws, losses, streak, opponent_rating_sum FROM tournament_players WHERE tournament_id = $1', [id]);
      for (const r of rows) {
        const e = expected.get(r.user_id)!;
        assert.deepEqual(
          [r.score, r.games, r.wins, r.draws, r.losses, r.streak, r.opponent_rating_sum],
          [e.score, e.games, e.wins, e.draws, e.losses, e.streak, e.opponentRatingSum],
        );
      }
    });
  });

  describe('withdrawing and aborted games', () => {
    it('stops pairing a withdrawn player, keeps their points and counts their game in progress', async () => {
      const id = await arena.tournament();
      const [a, b, c] = await arena.players(id, [1600, 1500, 1400]);
      await arena.host(id);
      const [g] = await arena.activeGames(id);
      assert.equal(pairOf(g), pair(a, b));
      await arena.service.withdraw(a, id);
      await arena.finish(g.id, winFor(g, a));
      await arena.beat();
      // A's win counts; A is not paired again; B and C are.
      const standings = await arena.standings(id);
      assert.deepEqual(standings.map((s) => [s.user.id, s.score, s.withdrawn]).slice(0, 1), [[a, 2, true]]);
      assert.deepEqual((await arena.activeGames(id)).map(pairOf), [pair(b, c)]);
      assert.equal((await tournamentRow(id)).player_count, 2);
      // Joining again brings A back, points and all.
      await arena.service.join(a, id);
      for (const game of await arena.activeGames(id)) await arena.finish(game.id, 'draw');
      await arena.beat();
      assert.ok((await arena.activeGames(id)).some((x) => pairOf(x).includes(a)));
      assert.equal((await arena.standings(id)).find((s) => s.user.id === a)?.score, 2);
    });

    it('scores nothing for a game aborted without a first move and withdraws the player who did not move', async () => {
      const id = await arena.tournament();
      const [a, b] = await arena.players(id, [1500, 1500]);
      await arena.host(id);
      const [g] = await arena.activeGames(id);
      // Nobody moves: White's first-move deadline (30 s) passes and the game is aborted.
      await arena.beat(31_000);
      const game = (await sql('SELECT status, abort_reason FROM games WHERE id = $1', [g.id]))[0];
      assert.deepEqual(game, { status: 'abandoned', abort_reason: 'no_first_move' });
      await arena.beat();
      const standings = await arena.standings(id);
      assert.deepEqual(
        standings.map((s) => [s.user.id, s.score, s.games, s.withdrawn]).sort(),
        [[g.white, 0, 0, true], [g.black, 0, 0, false]].sort(),
      );
      assert.equal((await tournamentRow(id)).player_count, 1);
      assert.deepEqual((await sql('SELECT white_points, black_points, counted_at IS NOT NULL AS counted FROM tournament_games WHERE game_id = $1', [g.id]))[0], {
        white_points: null, black_points: null, counted: true,
      });
      assert.deepEqual((await arena.activeGames(id)).length, 0, 'the withdrawn player is not paired again');
      assert.ok([a, b].includes(g.white));
    });

    it('withdraws Black when White moved and Black did not', async () => {
      const id = await arena.tournament();
      await arena.players(id, [1500, 1500]);
      await arena.host(id);
      const [g] = await arena.activeGames(id);
      const live = arena.games.get(g.id)!;
      assert.equal((await live.execute({ type: 'move', userId: g.white, from: 'e2', to: 'e4', promotion: null })).ok, true);
      await arena.beat(31_000);
      await arena.beat();
      const withdrawn = (await arena.standings(id)).filter((s) => s.withdrawn).map((s) => s.user.id);
      assert.deepEqual(withdrawn, [g.black]);
    });
  });

  describe('ending', () => {
    it('counts a game started before ends_at that ends after it, pairs nobody after ends_at, and finishes when the last game ends', async () => {
      const id = await arena.tournament({ minutes: 1 });
      const [a, b, c] = await arena.players(id, [1600, 1500, 1400]);
      const channel = await arena.listen(channels.tournament(id));
      await arena.host(id);
      const [g] = await arena.activeGames(id);
      assert.equal(pairOf(g), pair(a, b));
      const live = arena.games.get(g.id)!;
      for (const [mover, from, to] of [[g.white, 'e2', 'e4'], [g.black, 'e7', 'e5']]) {
        assert.equal((await live.execute({ type: 'move', userId: mover, from, to, promotion: null })).ok, true);
      }
      await arena.beat(61_000);
      // Past ends_at: C still waits, nobody is paired; the game goes on and the tournament runs.
      assert.deepEqual((await arena.activeGames(id)).map(pairOf), [pair(a, b)]);
      assert.equal((await tournamentRow(id)).status, 'running');
      await arena.finish(g.id, winFor(g, a));
      await arena.beat();
      const row = await tournamentRow(id);
      assert.equal(row.status, 'finished');
      assert.equal(row.finished_at.getTime(), arena.clock.now());
      assert.equal(row.host, null);
      const standings = await arena.standings(id);
      assert.deepEqual(standings.map((s) => [s.user.id, s.score, s.games]), [[a, 2, 1], [b, 0, 1], [c, 0, 0]]);
      assert.deepEqual(channel.filter((m) => m.type === 'status').map((m) => m.status), ['running', 'finished']);
      assert.equal(await arena.open(id, 'node-c'), 'not_active', 'a finished tournament is hosted nowhere');
    });

    it('finishes at ends_at itself when no game is going', async () => {
      const id = await arena.tournament({ minutes: 1 });
      const players = await arena.players(id, [1500, 1500]);
      await arena.host(id);
      const [g] = await arena.activeGames(id);
      await arena.finish(g.id, 'white');
      for (const p of players) await arena.service.withdraw(p, id);
      await arena.beat(60_000);
      assert.equal((await tournamentRow(id)).status, 'finished');
    });
  });
});
