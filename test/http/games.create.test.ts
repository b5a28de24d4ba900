import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { as, BLITZ, createActiveGame, sendChallenge, uniquePool } from '../helpers/games.ts';
import { api, newIp } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function create(user: TestUser, body: unknown) {
  return api('POST', '/v1/games', as(user, body));
}

describe('POST /games (challenge)', () => {
  let a: TestUser;
  let b: TestUser;
  beforeEach(async () => {
    [a, b] = await Promise.all([createUser(), createUser()]);
  });

  it('creates a pending challenge: 201 with id, status, expires_at and invite_url', async () => {
    const { config } = await testService();
    const before = Date.now();
    const res = await sendChallenge(a, b);
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.success, true);
    const data = res.body.data;
    assert.deepEqual(Object.keys(data).sort(), ['expires_at', 'id', 'invite_url', 'status']);
    assert.match(data.id, /^[0-9a-f-]{36}$/);
    assert.equal(data.status, 'pending');
    assert.equal(data.invite_url, `http://chess.test/play/${data.id}`);
    assert.match(data.expires_at, ISO_UTC);
    const ttl = Date.parse(data.expires_at) - before;
    assert.ok(ttl >= config.challengeTtlMs - 50 && ttl <= config.challengeTtlMs + 1000, `ttl ${ttl}`);
  });

  it('seats the players by the requested colour, and resolves random at creation', async () => {
    const asBlack = await sendChallenge(a, b, { color: 'black' });
    const view = await api('GET', `/v1/games/${asBlack.body.data.id}`, as(a));
    assert.equal(view.body.data.white_player.id, b.id);
    assert.equal(view.body.data.black_player.id, a.id);

    const random = await sendChallenge(a, b, { color: 'random' });
    const seated = (await api('GET', `/v1/games/${random.body.data.id}`, as(b))).body.data;
    assert.deepEqual([seated.white_player.id, seated.black_player.id].sort(), [a.id, b.id].sort());
  });

  it('defaults rated to true and color to random', async () => {
    const res = await create(a, { type: 'challenge', opponent_id: b.id, ...BLITZ });
    assert.equal(res.status, 201, res.text);
    const view = (await api('GET', `/v1/games/${res.body.data.id}`, as(a))).body.data;
    assert.equal(view.rated, true);
    assert.ok([view.white_player.id, view.black_player.id].includes(a.id));
  });

  it('refuses a time control whose category does not match its clock', async () => {
    const res = await create(a, { type: 'challenge', opponent_id: b.id, time_control: 'classical', initial_time: 60, increment: 0 });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    assert.match(res.body.error.details.time_control[0], /bullet/);
  });

  it('accepts each category at its boundaries (estimate = initial + 40 × increment)', async () => {
    const cases = [
      ['bullet', 179, 0],
      ['blitz', 180, 0],
      ['rapid', 480, 0],
      ['classical', 0, 38], // 1520 s
    ] as const;
    // Four challenges by four challengers: the challenge limit is 5 a minute per user.
    for (const [time_control, initial_time, increment] of cases) {
      const challenger = await createUser();
      const res = await create(challenger, { type: 'challenge', opponent_id: b.id, time_control, initial_time, increment });
      assert.equal(res.status, 201, `${time_control} ${initial_time}+${increment}: ${res.text}`);
    }
  });

  it('refuses clocks out of bounds, both zero, and non-integers, naming the field', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ time_control: 'classical', initial_time: 10_801, increment: 0 }, 'initial_time'],
      [{ time_control: 'classical', initial_time: 600, increment: 181 }, 'increment'],
      [{ time_control: 'bullet', initial_time: -1, increment: 0 }, 'initial_time'],
      [{ time_control: 'bullet', initial_time: 0, increment: 0 }, 'initial_time'],
      [{ time_control: 'blitz', initial_time: 300.5, increment: 0 }, 'initial_time'],
      [{ time_control: 'blitz', initial_time: '300', increment: 0 }, 'initial_time'],
    ];
    for (const [clock, field] of bad) {
      const user = await createUser(); // every request counts against the challenge limit
      const res = await create(user, { type: 'challenge', opponent_id: b.id, ...clock });
      assert.equal(res.status, 400, JSON.stringify(clock));
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      assert.ok(res.body.error.details[field], `${JSON.stringify(clock)} → ${res.text}`);
      assert.ok(Array.isArray(res.body.error.details[field]));
    }
  });

  it('refuses unknown enum values and missing fields, naming each field', async () => {
    const res = await create(a, { type: 'blitzkrieg', opponent_id: b.id, time_control: 'hyper', initial_time: 300, increment: 0, color: 'green', rated: 'yes' });
    assert.equal(res.status, 400);
    assert.deepEqual(Object.keys(res.body.error.details).sort(), ['color', 'rated', 'time_control', 'type']);

    const empty = await create(a, {});
    assert.equal(empty.status, 400);
    assert.deepEqual(Object.keys(empty.body.error.details).sort(), ['increment', 'initial_time', 'time_control', 'type']);
  });

  it('requires opponent_id for a challenge', async () => {
    const res = await create(a, { type: 'challenge', ...BLITZ });
    assert.equal(res.status, 400);
    assert.ok(res.body.error.details.opponent_id);
  });

  it('refuses a malformed opponent_id with 400', async () => {
    const res = await create(a, { type: 'challenge', opponent_id: 'not-a-uuid', ...BLITZ });
    assert.equal(res.status, 400);
    assert.ok(res.body.error.details.opponent_id);
  });

  it('refuses to let a player challenge themselves (400)', async () => {
    const res = await create(a, { type: 'challenge', opponent_id: a.id, ...BLITZ });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    assert.ok(res.body.error.details.opponent_id);
  });

  it('answers 404 USER_NOT_FOUND for an unknown opponent', async () => {
    const res = await create(a, { type: 'challenge', opponent_id: randomUUID(), ...BLITZ });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'USER_NOT_FOUND');
  });

  it('answers 409 PLAYER_BUSY when the challenger or the opponent plays an active game', async () => {
    const c = await createUser();
    await createActiveGame(a, b);
    const busyOpponent = await create(c, { type: 'challenge', opponent_id: a.id, ...BLITZ });
    assert.equal(busyOpponent.status, 409);
    assert.equal(busyOpponent.body.error.code, 'PLAYER_BUSY');
    const busyChallenger = await create(b, { type: 'challenge', opponent_id: c.id, ...BLITZ });
    assert.equal(busyChallenger.status, 409);
    assert.equal(busyChallenger.body.error.code, 'PLAYER_BUSY');
  });

  it('lets a player hold several pending challenges (only active games make a player busy)', async () => {
    const c = await createUser();
    assert.equal((await sendChallenge(a, b)).status, 201);
    assert.equal((await sendChallenge(a, c)).status, 201);
    assert.equal((await sendChallenge(c, a)).status, 201);
  });

  it('seeks an opponent with type matchmaking: pending alone, active once a second seeker arrives', async () => {
    const pool = uniquePool();
    const first = await create(a, { type: 'matchmaking', ...pool });
    assert.equal(first.status, 201, first.text);
    assert.equal(first.body.data.status, 'pending');
    const second = await create(b, { type: 'matchmaking', ...pool });
    assert.equal(second.status, 201, second.text);
    assert.equal(second.body.data.status, 'active');
    assert.equal(second.body.data.id, first.body.data.id);
    assert.deepEqual([second.body.data.white_player.id, second.body.data.black_player.id].sort(), [a.id, b.id].sort());
  });

  it('requires a valid access token (401 UNAUTHORIZED)', async () => {
    const res = await api('POST', '/v1/games', { ip: newIp(), body: { type: 'challenge', opponent_id: b.id, ...BLITZ } });
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, 'UNAUTHORIZED');
  });

  it('limits challenges to 5 a minute per user (429 with the rate-limit headers)', async () => {
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 6; i++) {
      last = await create(a, { type: 'challenge' }); // invalid bodies count too
      statuses.push(last.status);
    }
    assert.deepEqual(statuses, [400, 400, 400, 400, 400, 429]);
    assert.equal(last!.body.error.code, 'RATE_LIMIT_EXCEEDED');
    assert.equal(last!.headers.get('x-ratelimit-limit'), '5');
  });

  it('never answers a malformed body with a 500', async () => {
    const bodies = [
      '[]',
      '"challenge"',
      'null',
      '42',
      '{"type": null}',
      '{"type": "challenge", "opponent_id": {"$ne": 1}, "time_control": ["blitz"], "initial_time": 1e400, "increment": {}}',
      '{"type": "challenge", "opponent_id": 7, "time_control": "blitz", "initial_time": 300, "increment": 0}',
      '{"__proto__": {"type": "challenge"}, "constructor": {"prototype": {}}}',
    ];
    for (const rawBody of bodies) {
      const user = await createUser(); // the challenge limit is 5 a minute per user
      const res = await api('POST', '/v1/games', { token: user.accessToken, ip: user.ip, rawBody });
      assert.ok(res.status >= 400 && res.status < 500, `${rawBody} → ${res.status} ${res.text}`);
      assert.equal(res.body.success, false);
    }
  });
});
