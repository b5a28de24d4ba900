import assert from 'node:assert/strict';
import { GameListItem } from '../../src/services/gameViews.ts';
import { as, challenge, uniquePool } from '../helpers/games.ts';
import { api, newIp } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser, uniqueUsername, type TestUser } from '../helpers/users.ts';

/**
 * Tests run with a 2 s challenge and seek lifetime; the fixtures here get an hour so that a slow
 * run cannot see them lapse. Fails when the game is no longer pending.
 */
async function keepOpen(ids: string[]): Promise<void> {
  const { service } = await testService();
  const { rowCount } = await service.ctx.pool.query(
    `UPDATE games SET expires_at = now() + interval '1 hour' WHERE id = ANY($1::uuid[]) AND status = 'pending'`,
    [ids],
  );
  assert.equal(rowCount, ids.length, 'a fixture lapsed before it could be kept open');
}

/** Lets the sweeper abandon them (their deadline is now), so no fixture outlives its test file. */
async function letLapse(ids: string[]): Promise<void> {
  const { service } = await testService();
  await service.ctx.pool.query(`UPDATE games SET expires_at = now() WHERE id = ANY($1::uuid[]) AND status = 'pending'`, [ids]);
}

async function pendingChallenge(from: TestUser, to: TestUser, o: Parameters<typeof challenge>[2] = {}): Promise<string> {
  const id = await challenge(from, to, o);
  await keepOpen([id]);
  return id;
}

async function openSeek(user: TestUser, pool = uniquePool()): Promise<string> {
  const res = await api('POST', '/v1/games', as(user, { type: 'matchmaking', ...pool }));
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.data.status, 'pending', 'the seek was paired: the pool is not ours alone');
  await keepOpen([res.body.data.id]);
  return res.body.data.id;
}

const list = (user: TestUser, query = '') => api('GET', `/v1/games?${query}`, as(user));
const listPending = (user: TestUser, query = '') => list(user, `status=pending${query ? `&${query}` : ''}`);
const idsOf = (res: { body: any }) => res.body.data.map((g: { id: string }) => g.id);
/** id → direction of each listed game. */
const directions = (res: { body: any }) =>
  Object.fromEntries(res.body.data.map((g: { id: string; direction?: string }) => [g.id, g.direction]));

describe('GET /games?status=pending (your own pending games)', () => {
  // `me` has, in this order: a bullet challenge from `challenger`, a rapid challenge sent to
  // `challenged`, and an open blitz seek. `c` and `d` have a challenge of their own.
  let me: TestUser;
  let challenger: TestUser;
  let challenged: TestUser;
  let c: TestUser;
  let d: TestUser;
  const ids = { incoming: '', outgoing: '', seek: '', others: '' };

  before(async function () {
    this.timeout(30_000);
    [me, challenger, challenged, c, d] = await Promise.all([
      createUser(),
      createUser(),
      createUser({ username: uniqueUsername('pnd') }),
      createUser(),
      createUser(),
    ]);
    ids.incoming = await pendingChallenge(challenger, me, { time_control: 'bullet', initial_time: 60, increment: 0 });
    ids.outgoing = await pendingChallenge(me, challenged, { time_control: 'rapid', initial_time: 600, increment: 0 });
    ids.seek = await openSeek(me);
    ids.others = await pendingChallenge(c, d);
  });

  after(() => letLapse(Object.values(ids)));

  it('lists a challenge sent to you as incoming and one you sent as outgoing', async () => {
    const res = await listPending(me);
    assert.equal(res.status, 200, res.text);
    assert.equal(directions(res)[ids.incoming], 'incoming');
    assert.equal(directions(res)[ids.outgoing], 'outgoing');
    assert.ok(res.body.data.every((g: { status: string }) => g.status === 'pending'));
  });

  it('shows each challenge the other way round to the other player', async () => {
    assert.deepEqual(directions(await listPending(challenger)), { [ids.incoming]: 'outgoing' });
    assert.deepEqual(directions(await listPending(challenged)), { [ids.outgoing]: 'incoming' });
  });

  it('lists your open seek as outgoing, its empty seat null', async () => {
    const res = await listPending(me);
    const seek = res.body.data.find((g: { id: string }) => g.id === ids.seek);
    assert.ok(seek, res.text);
    assert.equal(seek.direction, 'outgoing');
    assert.equal(seek.time_control, 'blitz');
    // A random seeker waits at White.
    assert.equal(seek.white_player.id, me.id);
    assert.equal(seek.black_player, null);
  });

  it("lists exactly your own pending games, never other players' (even when filtered to them)", async () => {
    const mine = await listPending(me, 'limit=100');
    assert.deepEqual(idsOf(mine).sort(), [ids.incoming, ids.outgoing, ids.seek].sort());
    assert.equal(mine.body.pagination.total, 3);
    for (const query of [`player_id=${c.id}`, `player_id=${d.id}`, `search=${encodeURIComponent(c.username)}`]) {
      const res = await listPending(me, query);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(idsOf(res), [], query);
      assert.equal(res.body.pagination.total, 0, query);
    }
    assert.deepEqual(idsOf(await listPending(c)), [ids.others]);
  });

  it('shows the fields of the list plus direction, with current ratings in the game\'s category', async () => {
    const { service } = await testService();
    await service.ctx.pool.query(
      `INSERT INTO user_ratings (user_id, category, rating, rd, volatility) VALUES ($1, 'rapid', 1712.4, 80, 0.06)`,
      [me.id],
    );
    const res = await listPending(me);
    const outgoing = res.body.data.find((g: { id: string }) => g.id === ids.outgoing);
    assert.deepEqual(Object.keys(outgoing).sort(), [
      'black_player', 'black_time_remaining', 'created_at', 'current_turn', 'days_per_move', 'direction', 'fen', 'id', 'increment',
      'initial_time', 'move_count', 'pgn', 'result', 'status', 'time_control', 'tournament_id', 'updated_at', 'white_player', 'white_time_remaining', 'winner',
    ]);
    // The challenger plays White (test helpers' default).
    assert.deepEqual(outgoing.white_player, {
      id: me.id,
      username: me.username,
      rating: 1712,
      avatar_url: `http://chess.test/v1/users/${me.id}/avatar.svg`,
    });
    assert.equal(outgoing.black_player.id, challenged.id);
    assert.equal(outgoing.black_player.rating, 1500);
    assert.equal(outgoing.white_time_remaining, 600);
    // The rating of another category is not borrowed.
    const incoming = res.body.data.find((g: { id: string }) => g.id === ids.incoming);
    assert.equal(incoming.black_player.rating, 1500);
    // Every item is what the documented schema says, the seek's empty seat included.
    for (const g of res.body.data) GameListItem.strict().parse(g);
  });

  it('documents status=pending and direction in the OpenAPI document', async () => {
    const { body: doc } = await api('GET', '/v1/openapi.json');
    const op = doc.paths['/games'].get;
    assert.ok(op.parameters.find((p: { name: string }) => p.name === 'status').schema.enum.includes('pending'));
    assert.deepEqual(op.responses['200'].content['application/json'].schema.properties.data.items, { $ref: '#/components/schemas/GameListItem' });
    const item = doc.components.schemas.GameListItem;
    assert.deepEqual(item.properties.direction.enum, ['incoming', 'outgoing']);
    assert.ok(!item.required.includes('direction'), 'direction is absent outside status=pending');
  });

  it('filters by time_control, player_id and search', async () => {
    assert.deepEqual(idsOf(await listPending(me, 'time_control=bullet')), [ids.incoming]);
    assert.deepEqual(idsOf(await listPending(me, 'time_control=rapid')), [ids.outgoing]);
    assert.deepEqual(idsOf(await listPending(me, 'time_control=blitz')), [ids.seek]);
    assert.deepEqual(idsOf(await listPending(me, 'time_control=classical')), []);
    assert.deepEqual(idsOf(await listPending(me, `player_id=${challenger.id}`)), [ids.incoming]);
    const part = challenged.username.slice(-8).toUpperCase();
    assert.deepEqual(idsOf(await listPending(me, `search=${encodeURIComponent(part)}`)), [ids.outgoing]);
    // A pending game has no result yet.
    assert.deepEqual(idsOf(await listPending(me, 'result=1-0')), []);
  });

  it('sorts like every list: newest first by default, order and -field obeyed', async () => {
    const created = [ids.incoming, ids.outgoing, ids.seek];
    assert.deepEqual(idsOf(await listPending(me)), [...created].reverse());
    assert.deepEqual(idsOf(await listPending(me, 'sort=created_at&order=asc')), created);
    assert.deepEqual(idsOf(await listPending(me, 'sort=-created_at&order=asc')), [...created].reverse());
  });

  it('pages with page and limit, counting only your pending games', async () => {
    const created = [ids.incoming, ids.outgoing, ids.seek];
    const first = await listPending(me, 'sort=created_at&order=asc&limit=2');
    assert.deepEqual(idsOf(first), created.slice(0, 2));
    assert.deepEqual(first.body.pagination, { page: 1, limit: 2, total: 3, total_pages: 2, totalPages: 2, hasNext: true, hasPrev: false });
    const second = await listPending(me, 'sort=created_at&order=asc&limit=2&page=2');
    assert.deepEqual(idsOf(second), created.slice(2));
    assert.deepEqual(second.body.pagination, { page: 2, limit: 2, total: 3, total_pages: 2, totalPages: 2, hasNext: false, hasPrev: true });
    const beyond = await listPending(me, 'limit=2&page=3');
    assert.deepEqual(idsOf(beyond), []);
    assert.equal(beyond.body.pagination.total, 3);
  });

  it('still leaves pending games out of the default listing, and direction with them', async () => {
    for (const query of [`player_id=${me.id}`, 'limit=100', `player_id=${c.id}`]) {
      const res = await list(me, query);
      assert.equal(res.status, 200, res.text);
      for (const g of res.body.data) {
        assert.notEqual(g.status, 'pending', query);
        assert.ok(!('direction' in g), query);
      }
    }
    assert.deepEqual(idsOf(await list(me, `player_id=${me.id}`)), []);
  });

  it('leaves out a pending game past its deadline that the sweeper has not abandoned yet', async () => {
    const [x, y] = await Promise.all([createUser(), createUser()]);
    const id = await pendingChallenge(x, y);
    const { service } = await testService();
    // The sweeper takes its games FOR UPDATE SKIP LOCKED: a share lock keeps it off this one.
    const holder = await service.ctx.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM games WHERE id = $1 FOR KEY SHARE', [id]);
      await service.ctx.pool.query(`UPDATE games SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
      const res = await listPending(x);
      assert.deepEqual(idsOf(res), []);
      assert.equal(res.body.pagination.total, 0);
      const { rows } = await service.ctx.pool.query('SELECT status FROM games WHERE id = $1', [id]);
      assert.equal(rows[0].status, 'pending', 'the sweeper got to it first: the test proved nothing');
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  });

  it('drops a challenge once it is declined, cancelled or accepted', async () => {
    const [x, declines, cancelled, accepts] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
    const toDecline = await pendingChallenge(x, declines);
    const toCancel = await pendingChallenge(x, cancelled);
    const toAccept = await pendingChallenge(x, accepts);
    assert.deepEqual(idsOf(await listPending(x)).sort(), [toDecline, toCancel, toAccept].sort());

    assert.equal((await api('POST', `/v1/games/${toDecline}/decline`, as(declines))).status, 200);
    assert.deepEqual(idsOf(await listPending(declines)), []);
    assert.deepEqual(idsOf(await listPending(x)).sort(), [toCancel, toAccept].sort());

    assert.equal((await api('POST', `/v1/games/${toCancel}/cancel`, as(x))).status, 200);
    assert.deepEqual(idsOf(await listPending(x)).sort(), [toAccept]);

    assert.equal((await api('POST', `/v1/games/${toAccept}/accept`, as(accepts))).status, 200);
    const after = await listPending(x);
    assert.deepEqual(idsOf(after), []);
    assert.equal(after.body.pagination.total, 0);
    assert.deepEqual(idsOf(await listPending(accepts)), []);
    // They are ordinary games now, listed to everyone.
    assert.deepEqual(idsOf(await list(me, `player_id=${x.id}&limit=100`)).sort(), [toDecline, toCancel, toAccept].sort());
  });

  it('requires a valid access token (401)', async () => {
    const res = await api('GET', '/v1/games?status=pending', { ip: newIp() });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'UNAUTHORIZED');
  });
});
