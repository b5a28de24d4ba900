import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { api } from '../helpers/http.ts';
import { expectNo500 } from '../helpers/malformed.ts';
import { testService } from '../helpers/service.ts';
import { createUser, uniqueUsername } from '../helpers/users.ts';

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const PUBLIC_KEYS = ['avatar_url', 'bot', 'country', 'created_at', 'full_name', 'id', 'provisional', 'puzzle_rating', 'rating', 'ratings', 'stats', 'updated_at', 'username'];
const PRIVATE_KEYS = [...PUBLIC_KEYS, 'email', 'email_verified', 'pending_email'].sort();

const patchMe = (token: string, body: unknown) => api('PATCH', '/v1/users/me', { token, body });

async function expectInvalid(token: string, body: unknown, field: string) {
  const res = await patchMe(token, body);
  assert.equal(res.status, 400, res.text);
  assert.equal(res.body.error.code, 'VALIDATION_ERROR');
  assert.deepEqual(Object.keys(res.body.error.details), [field], res.text);
}

describe('GET /users/me', () => {
  it('answers the private profile with defaults for a new user', async () => {
    const user = await createUser();
    const res = await api('GET', '/v1/users/me', { token: user.accessToken });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.success, true);
    const p = res.body.data;
    assert.deepEqual(Object.keys(p).sort(), PRIVATE_KEYS);
    assert.equal(p.id, user.id);
    assert.equal(p.email, user.email);
    assert.equal(p.username, user.username);
    assert.equal(p.email_verified, false);
    assert.equal(p.pending_email, null);
    assert.equal(p.full_name, null);
    assert.equal(p.country, null);
    assert.equal(p.avatar_url, `http://chess.test/v1/users/${user.id}/avatar.svg`);
    assert.equal(p.rating, 1500);
    assert.deepEqual(p.ratings, { bullet: 1500, blitz: 1500, rapid: 1500, classical: 1500, correspondence: 1500 });
    assert.equal(p.puzzle_rating, 1500);
    assert.deepEqual(p.provisional, ['bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'puzzle'], "a new player's ratings are all provisional");
    assert.deepEqual(p.stats, { games: 0, wins: 0, losses: 0, draws: 0 });
    assert.match(p.created_at, ISO_UTC);
    assert.match(p.updated_at, ISO_UTC);
  });

  it('shows stored ratings as integers, rating being the blitz one and puzzle_rating the puzzle one, provisional while their deviation is above 110', async () => {
    const user = await createUser();
    const { db } = await testService();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query(
      `INSERT INTO user_ratings (user_id, category, rating, rd, volatility)
       VALUES ($1, 'blitz', 1623.6, 80, 0.06), ($1, 'bullet', 1402.2, 110, 0.06), ($1, 'puzzle', 1733.5, 70, 0.09), ($1, 'rapid', 1500, 110.5, 0.06)`,
      [user.id],
    );
    await client.end();
    const p = (await api('GET', '/v1/users/me', { token: user.accessToken })).body.data;
    assert.equal(p.rating, 1624);
    assert.deepEqual(p.ratings, { bullet: 1402, blitz: 1624, rapid: 1500, classical: 1500, correspondence: 1500 });
    assert.equal(p.puzzle_rating, 1734);
    // Lichess's line: a deviation of 110 is established, 110.5 is not.
    assert.deepEqual(p.provisional, ['rapid', 'classical', 'correspondence']);
    const seen = (await api('GET', `/v1/users/${user.id}`, { token: user.accessToken })).body.data;
    assert.equal(seen.puzzle_rating, 1734);
  });

  it('answers 401 without a token', async () => {
    assert.equal((await api('GET', '/v1/users/me')).status, 401);
  });
});

describe('GET /users/:id', () => {
  it('answers the public profile: no email, no email_verified', async () => {
    const [user, viewer] = await Promise.all([createUser({ full_name: 'Vera Menchik' }), createUser()]);
    const res = await api('GET', `/v1/users/${user.id}`, { token: viewer.accessToken });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body.data).sort(), PUBLIC_KEYS);
    assert.equal(res.body.data.username, user.username);
    assert.equal(res.body.data.full_name, 'Vera Menchik');
    assert.ok(!res.text.includes(user.email));
  });

  it('answers 404 USER_NOT_FOUND for an unknown id and for a malformed one', async () => {
    const viewer = await createUser();
    for (const id of [randomUUID(), 'abc', '123', `${randomUUID()}0`, 'me2', "x'%20OR%201=1", '%F0%9F%98%80']) {
      const res = await api('GET', `/v1/users/${id}`, { token: viewer.accessToken });
      assert.equal(res.status, 404, `${id}: ${res.text}`);
      assert.equal(res.body.error.code, 'USER_NOT_FOUND');
    }
  });
});

describe('PATCH /users/me', () => {
  it('changes full name, avatar, country and username, and answers the private profile', async () => {
    const user = await createUser();
    const username = uniqueUsername('new');
    const res = await patchMe(user.accessToken, {
      full_name: 'Hou Yifan',
      avatar_url: 'https://img.example.com/hou.png',
      country: 'cn',
      username,
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body.data).sort(), PRIVATE_KEYS);
    assert.equal(res.body.data.full_name, 'Hou Yifan');
    assert.equal(res.body.data.avatar_url, 'https://img.example.com/hou.png');
    assert.equal(res.body.data.country, 'CN');
    assert.equal(res.body.data.username, username);
    const again = await api('GET', '/v1/users/me', { token: user.accessToken });
    assert.deepEqual(again.body.data, res.body.data);
  });

  it('moves updated_at forward and leaves absent fields alone', async () => {
    const user = await createUser({ full_name: 'Keep Me' });
    const before = (await api('GET', '/v1/users/me', { token: user.accessToken })).body.data;
    const res = await patchMe(user.accessToken, { country: 'IN' });
    assert.equal(res.body.data.full_name, 'Keep Me');
    assert.ok(Date.parse(res.body.data.updated_at) > Date.parse(before.updated_at));
    assert.equal(res.body.data.created_at, before.created_at);
  });

  it('restores the defaults with null', async () => {
    const user = await createUser({ full_name: 'Temporary' });
    await patchMe(user.accessToken, { avatar_url: 'https://img.example.com/x.png', country: 'FR' });
    const res = await patchMe(user.accessToken, { avatar_url: null, country: null, full_name: null });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.avatar_url, `http://chess.test/v1/users/${user.id}/avatar.svg`);
    assert.equal(res.body.data.country, null);
    assert.equal(res.body.data.full_name, null);
  });

  it('answers an empty body with the unchanged profile', async () => {
    const user = await createUser();
    const res = await patchMe(user.accessToken, {});
    assert.equal(res.status, 200);
    assert.equal(res.body.data.username, user.username);
  });

  it('lets a user change the case of their own username', async () => {
    const user = await createUser();
    const res = await patchMe(user.accessToken, { username: user.username.toUpperCase() });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.username, user.username.toUpperCase());
  });

  it("refuses another user's username, whatever its case, with 409 USERNAME_ALREADY_EXISTS", async () => {
    const [user, other] = await Promise.all([createUser(), createUser()]);
    const res = await patchMe(user.accessToken, { username: other.username.toUpperCase() });
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.error.code, 'USERNAME_ALREADY_EXISTS');
  });

  describe('refuses with 400 VALIDATION_ERROR', () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['a username under 3 characters', { username: 'ab' }, 'username'],
      ['a username with other characters', { username: 'no spaces' }, 'username'],
      ['an offensive username', { username: 'b1tch_queen' }, 'username'],
      ['a null username', { username: null }, 'username'],
      ['an unknown country', { country: 'ZZ' }, 'country'],
      ['a three-letter country', { country: 'NOR' }, 'country'],
      ['a country that is a number', { country: 47 }, 'country'],
      ['a javascript: avatar', { avatar_url: 'javascript:alert(1)' }, 'avatar_url'],
      ['an empty avatar', { avatar_url: '' }, 'avatar_url'],
      ['an avatar over 2048 characters', { avatar_url: `https://img.example.com/${'a'.repeat(2030)}` }, 'avatar_url'],
      ['a full name with a direction override', { full_name: 'Ada \u202eLovelace' }, 'full_name'],
      ['a full name with a zero-width space', { full_name: 'Ada\u200bLovelace' }, 'full_name'],
      ['a full name mixing Cyrillic look-alikes into a Latin word', { full_name: 'Ad\u0430 Lovelace' }, 'full_name'],
      ['a username with a zero-width space', { username: 'ada\u200blovelace' }, 'username'],
      ['a full name over 100 characters', { full_name: 'x'.repeat(101) }, 'full_name'],
      ['a full name that is an object', { full_name: { first: 'A' } }, 'full_name'],
    ];
    for (const [what, body, field] of cases) {
      it(`for ${what}`, async () => expectInvalid((await createUser()).accessToken, body, field));
    }
  });

  it('never answers 500 to a malformed body', async function () {
    this.timeout(60_000);
    await expectNo500('PATCH', '/v1/users/me', {
      fields: ['full_name', 'avatar_url', 'country', 'username'],
      token: async () => (await createUser()).accessToken,
      allowSuccess: true,
    });
  });
});
