import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { as, challenge, createActiveGame, playLine } from '../helpers/games.ts';
import { api, newIp } from '../helpers/http.ts';
import { createUser, uniqueUsername, type TestUser } from '../helpers/users.ts';
import { testService } from '../helpers/service.ts';
import { foldGameListCounts } from '../../src/db/gameLists.ts';

// The interface's list view, plus result and winner (README, Decisions).
const LIST_KEYS = [
  'id', 'white_player', 'black_player', 'status', 'time_control', 'initial_time', 'increment', 'days_per_move', 'current_turn',
  'move_count', 'fen', 'pgn', 'white_time_remaining', 'black_time_remaining', 'created_at', 'updated_at', 'result', 'winner',
  // DESIGN 2.10: the arena that paired the game, null for every other.
  'tournament_id',
];

describe('GET /games (list)', () => {
  // One player P with three games against three opponents, created in this order:
  //   declined  — bullet 1+0 challenge from O1, declined last (so updated last)
  //   finished  — blitz 3+2, O2 (White) resigns: 0-1
  //   active    — rapid 10+0 from O3, two moves played
  // (A challenge left pending is made where it is needed: it expires after CHALLENGE_TTL_SECONDS,
  // 2 s in tests, and is then an abandoned game that lists like the declined one.)
  let p: TestUser;
  let reader: TestUser;
  const ids = { declined: '', finished: '', active: '' };

  before(async function () {
    this.timeout(30_000);
    const [o1, o2, o3] = await Promise.all([createUser(), createUser(), createUser()]);
    [p, reader] = await Promise.all([createUser({ username: uniqueUsername('lst') }), createUser()]);
    ids.declined = await challenge(o1, p, { time_control: 'bullet', initial_time: 60, increment: 0 });
    const finished = await createActiveGame(o2, p, { time_control: 'blitz', initial_time: 180, increment: 2 });
    ids.finished = finished.id;
    assert.equal((await api('POST', `/v1/games/${finished.id}/resign`, as(o2))).status, 200);
    const active = await createActiveGame(o3, p, { time_control: 'rapid', initial_time: 600, increment: 0 });
    ids.active = active.id;
    await playLine(active, ['e2e4', 'e7e5']);
    assert.equal((await api('POST', `/v1/games/${ids.declined}/decline`, as(p))).status, 200);
  });

  const list = (query: string, user = reader) => api('GET', `/v1/games?${query}`, as(user));
  const idsOf = (res: { body: any }) => res.body.data.map((g: { id: string }) => g.id);

  it("lists a player's games, newest first by default, never the pending ones", async () => {
    const res = await list(`player_id=${p.id}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.success, true);
    assert.deepEqual(idsOf(res), [ids.active, ids.finished, ids.declined]);
    assert.deepEqual(res.body.pagination, { page: 1, limit: 20, total: 3, total_pages: 1, totalPages: 1, hasNext: false, hasPrev: false });
  });

  it('never lists pending games, whoever asks', async () => {
    const [challenger, target] = await Promise.all([createUser(), createUser()]);
    const pending = await challenge(challenger, target);
    for (const user of [target, reader]) {
      const res = await list(`player_id=${target.id}&limit=100`, user);
      assert.equal(res.status, 200, res.text);
      assert.ok(!idsOf(res).includes(pending));
    }
    const all = await list('limit=100');
    assert.ok(all.body.data.every((g: { status: string }) => g.status !== 'pending'));
  });

  it('shows exactly the list fields, players without country', async () => {
    const res = await list(`player_id=${p.id}`);
    for (const g of res.body.data) {
      assert.deepEqual(Object.keys(g).sort(), [...LIST_KEYS].sort());
      assert.deepEqual(Object.keys(g.white_player).sort(), ['avatar_url', 'id', 'rating', 'username']);
    }
    const active = res.body.data[0];
    assert.equal(active.status, 'active');
    assert.equal(active.move_count, 2);
    assert.equal(active.pgn, '1. e4 e5');
    assert.equal(active.current_turn, 'white');
    assert.equal(active.time_control, 'rapid');
    assert.ok(active.white_time_remaining <= 600 && active.black_time_remaining === 600);
    assert.deepEqual([active.result, active.winner], [null, null]);
    const finished = res.body.data.find((g: { id: string }) => g.id === ids.finished);
    assert.deepEqual([finished.result, finished.winner], ['0-1', 'black'], 'who won, without reading the game');
  });

  it('filters by status', async () => {
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&status=active`)), [ids.active]);
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&status=finished`)), [ids.finished]);
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&status=abandoned`)), [ids.declined]);
  });

  it('filters by time_control', async () => {
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&time_control=bullet`)), [ids.declined]);
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&time_control=blitz`)), [ids.finished]);
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&time_control=classical`)), []);
  });

  it('filters by result', async () => {
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&result=0-1`)), [ids.finished]);
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&result=1-0`)), []);
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&result=${encodeURIComponent('1/2-1/2')}`)), []);
  });

  it('searches a username substring, case-insensitively', async () => {
    const part = p.username.slice(-8).toUpperCase();
    const res = await list(`search=${encodeURIComponent(part)}`);
    assert.deepEqual(idsOf(res), [ids.active, ids.finished, ids.declined]);
    assert.deepEqual(idsOf(await list(`search=${encodeURIComponent(part)}&status=finished`)), [ids.finished]);
  });

  it('counts a player\'s and a search\'s games once each, a game between two matching players too, when the page does not tell the total', async function () {
    this.timeout(20_000);
    // Two players whose names share a tag, and one whose name does not.
    const tag = uniqueUsername('cnt').slice(-8);
    const [m1, m2, other] = await Promise.all([
      createUser({ username: `a${tag}` }),
      createUser({ username: `b${tag}` }),
      createUser(),
    ]);
    const between = await createActiveGame(m1, m2);
    assert.equal((await api('POST', `/v1/games/${between.id}/resign`, as(between.white))).status, 200);
    const declined = await challenge(m2, other);
    assert.equal((await api('POST', `/v1/games/${declined}/decline`, as(other))).status, 200);
    await createActiveGame(other, m1, { time_control: 'bullet', initial_time: 60, increment: 0 });
    const total = async (query: string) => {
      // limit=1: the first page is full, so the total is counted rather than read off the page.
      const res = await list(`${query}&limit=1`);
      assert.equal(res.status, 200, res.text);
      return res.body.pagination.total;
    };
    assert.equal(await total(`search=${tag.toUpperCase()}`), 3);
    assert.equal(await total(`search=${tag}&status=finished`), 1);
    assert.equal(await total(`search=${tag}&time_control=bullet`), 1);
    assert.equal(await total(`player_id=${m1.id}`), 2);
    assert.equal(await total(`player_id=${other.id}`), 2);
    assert.equal(await total(`player_id=${other.id}&search=${tag}`), 2);
    assert.equal(await total(`player_id=${other.id}&search=${tag}&status=abandoned`), 1);
    assert.equal(await total(`player_id=${m1.id}&search=${other.username}`), 1);
  });

  it('takes LIKE wildcards in search literally', async () => {
    const percent = await list(`search=${encodeURIComponent('%')}`);
    assert.equal(percent.status, 200);
    assert.equal(percent.body.pagination.total, 0);
    // `_` is a legal username character: it matches only names that contain one.
    const underscore = await list(`search=_&limit=100`);
    assert.ok(underscore.body.pagination.total >= 3);
  });

  it('sorts by created_at or updated_at; -field is descending whatever order says', async () => {
    const created = [ids.declined, ids.finished, ids.active];
    const updated = [ids.finished, ids.active, ids.declined];
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&sort=created_at&order=asc`)), created);
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&sort=created_at`)), [...created].reverse());
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&order=asc`)), created);
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&sort=-created_at&order=asc`)), [...created].reverse());
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&sort=updated_at&order=asc`)), updated);
    assert.deepEqual(idsOf(await list(`player_id=${p.id}&sort=-updated_at`)), [...updated].reverse());
  });

  it("sorts active games by updated_at as of their last move (a move does not write the row's updated_at)", async function () {
    this.timeout(20_000);
    // Three games between players whose names share a tag (a player plays one game at a time).
    const tag = uniqueUsername('upd').slice(-8);
    const [w1, b1, w2, b2, w3, b3] = await Promise.all(
      ['w1', 'b1', 'w2', 'b2', 'w3', 'b3'].map((p) => createUser({ username: `${p}${tag}` })),
    );
    // Created in this order; then `finished` ends, and last a move is played in `first`.
    const first = await createActiveGame(w1, b1);
    const second = await createActiveGame(w2, b2);
    const finished = await createActiveGame(w3, b3);
    assert.equal((await api('POST', `/v1/games/${finished.id}/resign`, as(w3))).status, 200);
    await playLine(first, ['e2e4']);
    const byChange = [first.id, finished.id, second.id];
    assert.deepEqual(idsOf(await list(`search=${tag}&sort=-updated_at`)), byChange);
    assert.deepEqual(idsOf(await list(`search=${tag}&sort=updated_at&order=asc`)), [...byChange].reverse());
    assert.deepEqual(idsOf(await list(`search=${tag}&sort=-updated_at&limit=1&page=2`)), [finished.id]);
    assert.deepEqual(idsOf(await list(`search=${tag}&status=active&sort=-updated_at`)), [first.id, second.id]);
    assert.deepEqual(idsOf(await list(`search=${tag}&status=finished&sort=-updated_at`)), [finished.id]);
    assert.deepEqual(idsOf(await list(`player_id=${w1.id}&sort=-updated_at`)), [first.id]);
    // updated_at itself says so, in the list and in the detail.
    const listed = (await list(`search=${tag}&sort=-updated_at`)).body.data;
    assert.ok(Date.parse(listed[0].updated_at) > Date.parse(listed[1].updated_at), JSON.stringify(listed.map((g: any) => g.updated_at)));
    const detail = (await api('GET', `/v1/games/${first.id}`, as(w1))).body.data;
    assert.equal(detail.updated_at, listed[0].updated_at);
    assert.equal(detail.updated_at, detail.last_move_at);
  });

  it('pages with page and limit, reporting total, total_pages, hasNext and hasPrev', async () => {
    const first = await list(`player_id=${p.id}&limit=2`);
    assert.deepEqual(idsOf(first), [ids.active, ids.finished]);
    assert.deepEqual(first.body.pagination, { page: 1, limit: 2, total: 3, total_pages: 2, totalPages: 2, hasNext: true, hasPrev: false });
    const second = await list(`player_id=${p.id}&limit=2&page=2`);
    assert.deepEqual(idsOf(second), [ids.declined]);
    assert.deepEqual(second.body.pagination, { page: 2, limit: 2, total: 3, total_pages: 2, totalPages: 2, hasNext: false, hasPrev: true });
    const beyond = await list(`player_id=${p.id}&limit=2&page=5`);
    assert.deepEqual(idsOf(beyond), []);
    assert.equal(beyond.body.pagination.total, 3);
    assert.equal(beyond.body.pagination.hasNext, false);
  });

  it('reports an empty list as total 0, total_pages 0', async () => {
    const res = await list(`player_id=${randomUUID()}`);
    assert.deepEqual(res.body.data, []);
    assert.deepEqual(res.body.pagination, { page: 1, limit: 20, total: 0, total_pages: 0, totalPages: 0, hasNext: false, hasPrev: false });
  });

  const invalid: [string, string][] = [
    ['status=bogus', 'status'],
    ['time_control=hyper', 'time_control'],
    ['result=2-0', 'result'],
    ['sort=rating', 'sort'],
    ['order=up', 'order'],
    ['player_id=not-a-uuid', 'player_id'],
    ['page=0', 'page'],
    ['page=x', 'page'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=2.5', 'limit'],
    ['status=active&status=finished', 'status'],
    ['search=a&search=b', 'search'],
    [`search=${'x'.repeat(101)}`, 'search'],
  ];
  for (const [query, field] of invalid) {
    it(`refuses ${query.length > 40 ? `${query.slice(0, 20)}… (${query.length} chars)` : query} with 400 VALIDATION_ERROR naming ${field}`, async () => {
      const res = await list(query);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      assert.ok(res.body.error.details[field], res.text);
    });
  }

  describe('totals without a player or a search (kept per status, time control and result: migration 015)', () => {
    const FILTERS = ['', 'status=active', 'status=finished', 'status=abandoned', 'time_control=blitz', 'time_control=bullet',
      'result=0-1', 'result=1/2-1/2', 'status=finished&time_control=blitz&result=0-1', 'status=abandoned&time_control=bullet'];
    /** The games a filter matches, counted in the table itself. */
    async function counted(query: string): Promise<number> {
      const { service } = await testService();
      const params = new URLSearchParams(query);
      const where = ["status <> 'pending'", ...[...params].map(([k], i) => `${k} = $${i + 1}`)];
      const { rows } = await service.ctx.pool.query(`SELECT count(*)::int AS n FROM games WHERE ${where.join(' AND ')}`, [...params.values()]);
      return rows[0].n;
    }
    /** The API's total equals the table's count (read before and after it: the sweeper may abandon a game meanwhile). */
    async function assertTotals() {
      for (const query of FILTERS) {
        for (let attempt = 0; ; attempt++) {
          const before = await counted(query);
          const res = await list(`${query}&limit=1`);
          assert.equal(res.status, 200, res.text);
          if (before === (await counted(query))) {
            assert.equal(res.body.pagination.total, before, `total of ?${query}`);
            break;
          }
          assert.ok(attempt < 5, 'the games kept changing');
        }
      }
    }

    it('reports the exact number of games as they start, finish and are abandoned, before and after the deltas are folded', async function () {
      this.timeout(20_000);
      const [a, b, c] = await Promise.all([createUser(), createUser(), createUser()]);
      await assertTotals();
      const game = await createActiveGame(a, b, { time_control: 'blitz', initial_time: 180, increment: 2 });
      await assertTotals();
      assert.equal((await api('POST', `/v1/games/${game.id}/resign`, as(game.white))).status, 200);
      const declined = await challenge(c, a, { time_control: 'bullet', initial_time: 60, increment: 0 });
      assert.equal((await api('POST', `/v1/games/${declined}/decline`, as(a))).status, 200);
      await assertTotals();
      const { service } = await testService();
      // Folded (as the sweeper does every second): nothing counted twice or lost.
      await foldGameListCounts(service.ctx.pool);
      await assertTotals();
    });
  });

  it("counts a tournament's games, alone and with a player, when the page does not tell the total", async () => {
    const [a, b, c] = await Promise.all([createUser(), createUser(), createUser()]);
    const { service } = await testService();
    const pool = service.ctx.pool;
    const { rows } = await pool.query(
      `INSERT INTO tournaments (name, creator_id, time_control, initial_time, increment, rated, starts_at, ends_at, status, created_at)
       VALUES ('List totals arena', $1, 'blitz', 180, 0, true, now(), now() + interval '1 hour', 'running', now()) RETURNING id`,
      [a.id],
    );
    const tournamentId = rows[0].id as string;
    // Three games of the arena (two of them a's), one game outside it.
    const games = [];
    for (const [white, black] of [[a, b], [c, a]] as const) {
      const game = await createActiveGame(white, black);
      assert.equal((await api('POST', `/v1/games/${game.id}/resign`, as(game.white))).status, 200);
      games.push(game);
    }
    games.push(await createActiveGame(b, c));
    await createActiveGame(a, await createUser());
    await pool.query(`UPDATE games SET tournament_id = $1 WHERE id = ANY($2::uuid[])`, [tournamentId, games.map((g) => g.id)]);

    const page = async (query: string) => (await api('GET', `/v1/games?tournament_id=${tournamentId}&limit=1${query}`, as(a))).body.pagination.total;
    assert.equal(await page(''), 3);
    assert.equal(await page(`&player_id=${a.id}`), 2);
    assert.equal(await page('&status=finished'), 2);
    assert.equal(await page(`&search=${a.username.slice(1)}`), 2);
  });

  it('requires a valid access token (401)', async () => {
    const res = await api('GET', '/v1/games', { ip: newIp() });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'UNAUTHORIZED');
  });
});
