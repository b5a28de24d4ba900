import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { api } from '../helpers/http.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { renderAvatar } from '../../src/services/users.ts';

/** A prefix no other test's usernames start with (vowel-free, so never offensive). */
const uniquePrefix = () => `q${[...randomBytes(5)].map((b) => 'bcdfghjkmnpqrvwxz'[b % 17]).join('')}`;
const search = (token: string, query: string) => api('GET', `/v1/users/search?${query}`, { token });

describe('GET /users/search', () => {
  let prefix: string;
  let viewer: TestUser;
  let names: string[];

  before(async () => {
    prefix = uniquePrefix();
    // Mixed case on purpose: the order and the match ignore case.
    names = [`${prefix}_Carol`, `${prefix}_alice`, `${prefix.toUpperCase()}_bob`, `${prefix}x_dave`];
    viewer = await createUser();
    for (const username of names) await createUser({ username });
  });

  it('finds usernames by prefix, case-insensitively, ordered by username', async () => {
    const res = await search(viewer.accessToken, `q=${prefix.toUpperCase()}`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.data.map((u: { username: string }) => u.username),
      [`${prefix}_alice`, `${prefix.toUpperCase()}_bob`, `${prefix}_Carol`, `${prefix}x_dave`],
    );
    assert.deepEqual(res.body.pagination, { page: 1, limit: 20, total: 4, total_pages: 1, totalPages: 1, hasNext: false, hasPrev: false });
  });

  it('answers public profiles, without email', async () => {
    const res = await search(viewer.accessToken, `q=${prefix}`);
    for (const u of res.body.data) {
      assert.equal(u.email, undefined);
      assert.equal(u.email_verified, undefined);
      assert.equal(typeof u.rating, 'number');
      assert.match(u.avatar_url, /^http:\/\/chess\.test\/v1\/users\/[0-9a-f-]{36}\/avatar\.svg$/);
    }
  });

  it('matches a prefix only, not a substring', async () => {
    const res = await search(viewer.accessToken, `q=${prefix.slice(1)}`);
    assert.equal(res.body.pagination.total, 0);
  });

  it('pages with page and limit', async () => {
    const first = await search(viewer.accessToken, `q=${prefix}&limit=3`);
    assert.equal(first.body.data.length, 3);
    assert.deepEqual(first.body.pagination, { page: 1, limit: 3, total: 4, total_pages: 2, totalPages: 2, hasNext: true, hasPrev: false });
    const second = await search(viewer.accessToken, `q=${prefix}&limit=3&page=2`);
    assert.deepEqual(second.body.data.map((u: { username: string }) => u.username), [`${prefix}x_dave`]);
    assert.equal(second.body.pagination.hasPrev, true);
    const beyond = await search(viewer.accessToken, `q=${prefix}&limit=3&page=3`);
    assert.deepEqual(beyond.body.data, []);
    assert.equal(beyond.body.pagination.total, 4);
  });

  it('takes _ and % literally, not as LIKE wildcards', async () => {
    // Unescaped, "_" would match the "x" of `${prefix}x_dave` and "%" would match everyone.
    const underscore = await search(viewer.accessToken, `q=${prefix}_`);
    assert.equal(underscore.body.pagination.total, 3);
    const percent = await search(viewer.accessToken, `q=${encodeURIComponent(`${prefix}%`)}`);
    assert.equal(percent.body.pagination.total, 0);
    const onlyPercent = await search(viewer.accessToken, 'q=%25');
    assert.equal(onlyPercent.body.pagination.total, 0);
    const backslash = await search(viewer.accessToken, `q=${encodeURIComponent(`${prefix}\\`)}`);
    assert.equal(backslash.body.pagination.total, 0);
  });

  it('answers an empty page, with total 0, when nothing matches', async () => {
    const res = await search(viewer.accessToken, `q=${uniquePrefix()}`);
    assert.deepEqual(res.body.data, []);
    assert.equal(res.body.pagination.total, 0);
    assert.equal(res.body.pagination.total_pages, 0);
  });

  it('refuses a missing, empty, too long or repeated q and bad paging with 400 VALIDATION_ERROR', async () => {
    const cases: Array<[string, string]> = [
      ['', 'q'],
      ['q=', 'q'],
      [`q=${'a'.repeat(21)}`, 'q'],
      ['q=a&q=b', 'q'],
      ['q=%00', 'q'],
      ['q=a&page=0', 'page'],
      ['q=a&page=x', 'page'],
      ['q=a&limit=101', 'limit'],
      ['q=a&limit=-1', 'limit'],
      ['q=a&limit=2.5', 'limit'],
    ];
    for (const [query, field] of cases) {
      const res = await search(viewer.accessToken, query);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      assert.ok(res.body.error.details[field], `${query}: ${res.text}`);
    }
  });

  it('never answers 500 to odd query strings', async () => {
    for (const query of ['q=%ZZ', 'q[]=a', 'q[a]=b', 'q=a%00b', 'q=😀', 'q=a&page=1e309', 'q=a&limit=0x10', '__proto__=x&q=a', 'q=a&page=99999999999']) {
      const res = await search(viewer.accessToken, query);
      assert.ok(res.status < 500 && res.body?.success !== undefined, `${query}: ${res.status} ${res.text}`);
    }
  });

  it('requires a token', async () => {
    assert.equal((await api('GET', `/v1/users/search?q=${prefix}`)).status, 401);
  });
});

describe('GET /users/:id/avatar.svg', () => {
  it('serves a cacheable SVG with the initials, without a token', async () => {
    const user = await createUser();
    const res = await api('GET', `/v1/users/${user.id}/avatar.svg`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    assert.match(res.headers.get('cache-control') ?? '', /public, max-age=\d+/);
    assert.match(res.text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.ok(res.text.includes(`>${user.username.replace(/_/g, '').slice(0, 2).toUpperCase()}</text>`));
  });

  it('is what the default avatar_url points to', async () => {
    const user = await createUser();
    const me = await api('GET', '/v1/users/me', { token: user.accessToken });
    const res = await api('GET', new URL(me.body.data.avatar_url).pathname);
    assert.equal(res.status, 200);
    assert.match(res.text, /^<svg/);
  });

  it('answers 404 USER_NOT_FOUND for unknown and malformed ids', async () => {
    for (const id of [randomUUID(), 'nope']) {
      const res = await api('GET', `/v1/users/${id}/avatar.svg`);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'USER_NOT_FOUND');
    }
  });

  it('derives the colour from the id: the same for one user, different between users', () => {
    const fill = (svg: string) => svg.match(/fill="(hsl\([^"]+\))"/)![1];
    const a = '00000000-0000-4000-8000-000000000001';
    const b = '00000000-0000-4000-8000-000000000002';
    assert.equal(fill(renderAvatar(a, 'ann')), fill(renderAvatar(a, 'bob')));
    assert.notEqual(fill(renderAvatar(a, 'ann')), fill(renderAvatar(b, 'ann')));
  });
});
