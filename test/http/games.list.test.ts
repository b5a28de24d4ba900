import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { as, challenge, createActiveGame, playLine } from '../helpers/games.ts';
import { api, newIp } from '../helpers/http.ts';
import { createUser, uniqueUsername, type TestUser } from '../helpers/users.ts';

// The interface's list view, plus result and winner (README, Decisions).
const LIST_KEYS = [
  'id', 'white_player', 'black_player', 'status', 'time_control', 'initial_time', 'increment', 'current_turn',
  'move_count', 'fen', 'pgn', 'white_time_remaining', 'black_time_remaining', 'created_at', 'updated_at', 'result', 'winner',
  // DESIGN 2.10: the arena that paired the game, null for every other.
  'tournament_id',
];

describe('GET /games (list)', () => {
  // One player P with four games against four opponents, created in this order:
  //   declined  — bullet 1+0 challenge from O1, declined last (so updated last)
  //   finished  — blitz 3+2, O2 (White) resigns: 0-1
  //   pending   — O4's challenge, never answered: never listed
  //   active    — rapid 10+0 from O3, two moves played
  let p: TestUser;
  let reader: TestUser;
  const ids = { declined: '', finished: '', pending: '', active: '' };

  before(async function () {
    this.timeout(30_000);
    const [o1, o2, o3, o4] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
    [p, reader] = await Promise.all([createUser({ username: uniqueUsername('lst') }), createUser()]);
    ids.declined = await challenge(o1, p, { time_control: 'bullet', initial_time: 60, increment: 0 });
    const finished = await createActiveGame(o2, p, { time_control: 'blitz', initial_time: 180, increment: 2 });
    ids.finished = finished.id;
    assert.equal((await api('POST', `/v1/games/${finished.id}/resign`, as(o2))).status, 200);
    ids.pending = await challenge(o4, p);
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
    for (const user of [p, reader]) {
      const res = await list(`player_id=${p.id}&limit=100`, user);
      assert.ok(!idsOf(res).includes(ids.pending));
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

  it('requires a valid access token (401)', async () => {
    const res = await api('GET', '/v1/games', { ip: newIp() });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'UNAUTHORIZED');
  });
});
