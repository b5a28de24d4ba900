import assert from 'node:assert/strict';
import { as, createActiveGame, getGame, uniquePool } from '../helpers/games.ts';
import { api, type ApiResponse } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { sleep } from '../../src/time.ts';

type Pool = ReturnType<typeof uniquePool>;
type SeekOptions = { color?: 'white' | 'black' | 'random'; rated?: boolean };

/** POST /games type matchmaking into `pool`; the raw response. */
function seek(user: TestUser, pool: Pool, o: SeekOptions = {}): Promise<ApiResponse> {
  return api('POST', '/v1/games', as(user, { type: 'matchmaking', ...pool, ...o }));
}

/** A seek that must be accepted (201); its data (the pending view or the active game). */
async function seekOk(user: TestUser, pool: Pool, o: SeekOptions = {}): Promise<any> {
  const res = await seek(user, pool, o);
  assert.equal(res.status, 201, `seek failed: ${res.text}`);
  return res.body.data;
}

async function view(id: string, user: TestUser): Promise<any> {
  const res = await getGame(id, user);
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}


/** Polls GET /games/:id every 200 ms (the read limit is 60/min) until `done` holds or time runs out. */
async function pollGame(id: string, user: TestUser, done: (g: any) => boolean, timeoutMs: number): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const g = await view(id, user);
    if (done(g) || Date.now() > until) return g;
    await sleep(200);
  }
}

/** Gives the user a blitz rating (the pools of these tests are blitz). */
async function setRating(user: TestUser, rating: number): Promise<void> {
  const { service } = await testService();
  await service.ctx.pool.query(
    `INSERT INTO user_ratings (user_id, category, rating, rd, volatility) VALUES ($1, 'blitz', $2, 80, 0.06)
     ON CONFLICT (user_id, category) DO UPDATE SET rating = EXCLUDED.rating`,
    [user.id, rating],
  );
}

const seated = (g: any) => [g.white_player?.id, g.black_player?.id].sort();
const users = (n: number) => Promise.all(Array.from({ length: n }, () => createUser()));

describe('Matchmaking over REST (POST /games type matchmaking)', () => {
  let publicUrl: string;

  before(async () => {
    publicUrl = (await testService()).config.publicUrl;
  });

  describe('pools', () => {
    it('pairs two seekers of the same pool into one active game with both seated', async () => {
      const [a, b] = await users(2);
      const pool = uniquePool();
      const pending = await seekOk(a, pool);
      const game = await seekOk(b, pool);
      assert.equal(game.status, 'active');
      assert.equal(game.id, pending.id, 'the waiting seek becomes the game');
      assert.deepEqual(seated(game), [a.id, b.id].sort());
      assert.equal((await view(pending.id, a)).status, 'active', 'the waiting seeker sees the game start');
    });

    it('never pairs across pools: another clock or another rated flag is another pool', async () => {
      const [a, b, c, d] = await users(4);
      const pool = uniquePool();
      const other = uniquePool();
      const seeks = [await seekOk(a, pool, { rated: true }), await seekOk(b, pool, { rated: false }), await seekOk(c, other, { rated: true })];
      assert.deepEqual(seeks.map((s) => s.status), ['pending', 'pending', 'pending']);
      // A pairing pass of each pool has run: the running service's pools pass every second of its
      // system clock (the pass itself is tested on a manual clock in test/services/seekPoolActor.test.ts).
      await sleep(1200);
      for (const [s, u] of [[seeks[0], a], [seeks[1], b], [seeks[2], c]] as const) {
        assert.equal((await view(s.id, u)).status, 'pending', 'nobody was paired across pools');
      }
      const game = await seekOk(d, pool, { rated: true });
      assert.equal(game.id, seeks[0].id, 'the newcomer meets the seeker of its own pool');
    });
  });

  describe('response shapes', () => {
    it('answers a lone seek 201 with {id, status: pending, expires_at, invite_url}', async () => {
      const [a] = await users(1);
      const before = Date.now();
      const res = await seek(a, uniquePool());
      assert.equal(res.status, 201, res.text);
      const data = res.body.data;
      assert.deepEqual(Object.keys(data).sort(), ['expires_at', 'id', 'invite_url', 'status']);
      assert.equal(data.status, 'pending');
      assert.match(data.id, /^[0-9a-f-]{36}$/);
      assert.equal(data.invite_url, `${publicUrl}/play/${data.id}`);
      assert.match(data.expires_at, /Z$/);
      const ttl = Date.parse(data.expires_at) - before;
      assert.ok(ttl > 1000 && ttl <= 3000, `expires after SEEK_TTL_SECONDS (2 s), not ${ttl} ms`);
    });

    it('answers the pairing seek 201 with the active game: both seated with their ratings at start', async () => {
      const [a, b] = await users(2);
      await setRating(a, 1530);
      await setRating(b, 1470);
      const pool = uniquePool();
      await seekOk(a, pool);
      const game = await seekOk(b, pool);
      assert.equal(game.status, 'active');
      assert.deepEqual([game.time_control, game.initial_time, game.increment, game.rated], ['blitz', pool.initial_time, 0, true]);
      assert.equal(game.move_count, 0);
      assert.equal(game.current_turn, 'white');
      assert.equal(game.expires_at, null);
      const ratingOf = (id: string) => [game.white_player, game.black_player].find((p: any) => p.id === id).rating;
      assert.equal(ratingOf(a.id), 1530);
      assert.equal(ratingOf(b.id), 1470);
      const usernames = [game.white_player.username, game.black_player.username].sort();
      assert.deepEqual(usernames, [a.username, b.username].sort());
    });

    it('honours colour preferences: white meets black as asked', async () => {
      const [a, b, c, d] = await users(4);
      const pool = uniquePool();
      await seekOk(a, pool, { color: 'black' });
      const first = await seekOk(b, pool, { color: 'white' });
      assert.deepEqual([first.white_player.id, first.black_player.id], [b.id, a.id]);
      const other = uniquePool();
      await seekOk(c, other, { color: 'white' });
      const second = await seekOk(d, other, { color: 'random' });
      assert.deepEqual([second.white_player.id, second.black_player.id], [c.id, d.id]);
    });

    it('never pairs two seekers who both want white: both stay pending', async () => {
      const [a, b] = await users(2);
      const pool = uniquePool();
      const first = await seekOk(a, pool, { color: 'white' });
      const second = await seekOk(b, pool, { color: 'white' });
      assert.equal(second.status, 'pending');
      assert.notEqual(second.id, first.id);
      await sleep(1200); // the pairing pass (the service's, each second in real time) does not pair them either
      assert.equal((await view(first.id, a)).status, 'pending');
      assert.equal((await view(second.id, b)).status, 'pending');
    });

    it('shows a pending seek only to its seeker (404 for anyone else)', async () => {
      const [a, b] = await users(2);
      const pending = await seekOk(a, uniquePool());
      const res = await getGame(pending.id, b);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'GAME_NOT_FOUND');
    });
  });

  describe('rating windows', () => {
    it('pairs a newcomer within ±100 at once, and a wider gap only once the waiting seek widened it', async () => {
      const [a, b, c, d] = await users(4);
      await Promise.all([setRating(a, 1500), setRating(b, 1600), setRating(c, 1500), setRating(d, 1620)]);
      const pool = uniquePool();
      const close = await seekOk(a, pool);
      assert.equal((await seekOk(b, pool)).id, close.id, 'a gap of 100 pairs at once');
      const other = uniquePool();
      const waiting = await seekOk(c, other);
      const newcomer = await seekOk(d, other);
      assert.equal(newcomer.status, 'pending', 'a gap of 120 is outside ±100 at first');
      // c's window grows 50 a second: 120 fits after 0.4 s, so the next 1 s pass pairs them.
      const game = await pollGame(waiting.id, c, (g) => g.status !== 'pending', 1800);
      assert.equal(game.status, 'active');
      assert.deepEqual(seated(game), [c.id, d.id].sort());
    });

    it('gives the newcomer the closest-rated waiting seeker, not the oldest', async () => {
      const [far, near, newcomer] = await users(3);
      await Promise.all([setRating(far, 1400), setRating(near, 1560), setRating(newcomer, 1490)]);
      const pool = uniquePool();
      const farSeek = await seekOk(far, pool);
      const nearSeek = await seekOk(near, pool);
      assert.equal(nearSeek.status, 'pending', '1400 and 1560 are 160 apart');
      const game = await seekOk(newcomer, pool);
      assert.equal(game.status, 'active');
      assert.equal(game.id, nearSeek.id, 'paired with the 1560 (70 away) rather than the older 1400 (90 away)');
      assert.deepEqual(seated(game), [near.id, newcomer.id].sort());
      assert.equal((await view(farSeek.id, far)).status, 'pending');
    });

    it("leads the younger of two waiting seekers paired by the pass from their seek's id to the game", async () => {
      const [a, b] = await users(2);
      await Promise.all([setRating(a, 1500), setRating(b, 1620)]);
      const pool = uniquePool();
      const older = await seekOk(a, pool);
      const younger = await seekOk(b, pool);
      assert.equal(younger.status, 'pending');
      const game = await pollGame(younger.id, b, (g) => g.status !== 'pending', 1800);
      assert.equal(game.status, 'active');
      assert.equal(game.id, older.id, "the younger seek's id leads to the older seek's game");
      assert.deepEqual(seated(game), [a.id, b.id].sort());
      const stranger = (await users(1))[0];
      assert.equal((await getGame(younger.id, stranger)).status, 404, 'the redirect is for its owner only');
    });
  });

  describe('busy players', () => {
    it('allows one open seek per user: a second one is 409 PLAYER_BUSY, in the same pool or another', async () => {
      const [a] = await users(1);
      const pool = uniquePool();
      await seekOk(a, pool);
      for (const p of [pool, uniquePool()]) {
        const res = await seek(a, p);
        assert.equal(res.status, 409, res.text);
        assert.equal(res.body.error.code, 'PLAYER_BUSY');
      }
    });

    it('refuses a seek while the player is in an active game (409 PLAYER_BUSY)', async () => {
      const [a, b] = await users(2);
      await createActiveGame(a, b);
      const res = await seek(a, uniquePool());
      assert.equal(res.status, 409, res.text);
      assert.equal(res.body.error.code, 'PLAYER_BUSY');
    });

    it('cancels the open seek of a player who accepts a challenge meanwhile', async () => {
      const [a, b, later] = await users(3);
      const pool = uniquePool();
      const pending = await seekOk(a, pool);
      const challenge = await api('POST', '/v1/games', as(b, { type: 'challenge', opponent_id: a.id, ...pool, color: 'white' }));
      assert.equal(challenge.status, 201, challenge.text);
      assert.equal((await api('POST', `/v1/games/${challenge.body.data.id}/accept`, as(a, {}))).status, 200);
      const seekNow = await view(pending.id, a);
      assert.deepEqual([seekNow.status, seekNow.abort_reason], ['abandoned', 'cancelled']);
      // Nobody is paired with a player who is busy playing.
      assert.equal((await seekOk(later, pool)).status, 'pending');
    });

    it('never seats a player who seeks in two pools at once in a game while a seek stays open', async () => {
      // Each round: x seeks in two pools at the same moment; a partner waits in one of them.
      // Both pools' actors exist already (a seeker who also wants white keeps p1 open), so
      // neither request waits for a pool to be created and they really race.
      for (let round = 0; round < 8; round++) {
        const [x, waiting, keeper] = await users(3);
        const [p1, p2] = [uniquePool(), uniquePool()];
        await seekOk(keeper, p1, { color: 'white' });
        await seekOk(waiting, p2, { color: 'black' });
        const [r1, r2] = await Promise.all([seek(x, p1, { color: 'white' }), seek(x, p2, { color: 'white' })]);
        const statuses = [r1.status, r2.status].sort();
        const { service } = await testService();
        const { rows } = await service.ctx.pool.query(
          `SELECT status, count(*)::int AS n FROM games WHERE (white_id = $1 OR black_id = $1) AND status IN ('pending', 'active') GROUP BY status`,
          [x.id],
        );
        const open = Object.fromEntries(rows.map((r) => [r.status, r.n]));
        assert.deepEqual(statuses, [201, 409], `round ${round}: ${r1.text} / ${r2.text}`);
        assert.ok(!(open.active && open.pending), `round ${round}: x plays a game and still has an open seek: ${JSON.stringify(open)}`);
      }
    });
  });

  it('pairs 50 simultaneous seekers of one pool into exactly 25 games, nobody twice', async () => {
    const seekers = await users(50);
    const pool = uniquePool();
    const responses = await Promise.all(seekers.map((u) => seek(u, pool)));
    for (const r of responses) assert.equal(r.status, 201, r.text);
    // Seeks that landed pending together are paired by the next pass.
    const final = await Promise.all(
      responses.map((r, i) => pollGame(r.body.data.id, seekers[i], (g) => g.status !== 'pending', 2500)),
    );
    const games = new Map<string, any>();
    for (const g of final) {
      assert.equal(g.status, 'active', `a seek was left ${g.status}`);
      games.set(g.id, g);
    }
    assert.equal(games.size, 25);
    const players = [...games.values()].flatMap(seated);
    assert.equal(new Set(players).size, 50, 'a player sits in two games');
    assert.deepEqual([...players].sort(), seekers.map((u) => u.id).sort());
    const { service } = await testService();
    const { rows } = await service.ctx.pool.query(
      `SELECT status, count(*)::int AS n FROM games WHERE kind = 'matchmaking' AND initial_time = $1 AND increment = 0 GROUP BY status`,
      [pool.initial_time],
    );
    assert.deepEqual(Object.fromEntries(rows.map((r) => [r.status, r.n])), { active: 25 });
  });

  describe('expiry and cancel', () => {
    it('abandons a lone seek as expired within 1 s after SEEK_TTL_SECONDS', async () => {
      const [a, b] = await users(2);
      const pool = uniquePool();
      const pending = await seekOk(a, pool);
      const deadline = Date.parse(pending.expires_at);
      const game = await pollGame(pending.id, a, (g) => g.status !== 'pending', 3500);
      const lateBy = Date.now() - deadline;
      assert.equal(game.status, 'abandoned');
      assert.equal(game.abort_reason, 'expired');
      assert.deepEqual([game.result, game.winner, game.termination], [null, null, null]);
      assert.ok(lateBy <= 1300, `expired ${lateBy} ms after its deadline`);
      const next = await seekOk(b, pool);
      assert.equal(next.status, 'pending', 'an expired seek is nobody to pair with');
      const again = await seekOk(a, uniquePool());
      assert.equal(again.status, 'pending', 'the seeker may seek again');
    });

    it('lets the seeker cancel (abandoned, cancelled) and pairs nobody with the cancelled seek', async () => {
      const [a, b, c] = await users(3);
      const pool = uniquePool();
      const pending = await seekOk(a, pool);
      const res = await api('POST', `/v1/games/${pending.id}/cancel`, as(a));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.status, 'abandoned');
      assert.equal(res.body.data.abort_reason, 'cancelled');
      // At once, before the pool's next pass has re-read the pool.
      const next = await seekOk(b, pool);
      assert.equal(next.status, 'pending');
      assert.notEqual(next.id, pending.id);
      // Someone else may not cancel it; the cancelled seek cannot be cancelled twice.
      assert.equal((await api('POST', `/v1/games/${next.id}/cancel`, as(c))).status, 404);
      const twice = await api('POST', `/v1/games/${pending.id}/cancel`, as(a));
      assert.equal(twice.status, 409);
      assert.equal(twice.body.error.code, 'GAME_NOT_PENDING');
      assert.equal((await seekOk(a, pool)).id, next.id, 'after cancelling, the seeker may seek again');
    });
  });
});
