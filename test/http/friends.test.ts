import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { friendRoutes } from '../../src/http/routes/friends.ts';
import { createFriends } from '../../src/services/friends.ts';
import type { Services } from '../../src/services/index.ts';
import { startApp } from '../helpers/app.ts';
import { ManualClock } from '../helpers/clock.ts';
import { as } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { until } from '../helpers/poll.ts';
import { receiverPerTest, type Received } from '../support/receiver.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { subscribeUser } from '../helpers/ws.ts';

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const who = (u: TestUser) => ({ id: u.id, username: u.username });
const ask = (from: TestUser, to: string) => api('POST', `/v1/friends/${to}`, as(from));
const unfriend = (from: TestUser, to: string) => api('DELETE', `/v1/friends/${to}`, as(from));
const list = (user: TestUser, query = '') => api('GET', `/v1/friends${query}`, as(user));

async function sql(text: string, params: unknown[] = []) {
  const { service } = await testService();
  return service.ctx.pool.query(text, params);
}

/** `count` users straight into the database (for the limits), with ids in order of creation. */
async function insertUsers(count: number): Promise<string[]> {
  const tag = randomUUID().slice(0, 8);
  const { rows } = await sql(
    `INSERT INTO users (email, username, password_hash)
     SELECT 'bulk' || $1 || '_' || n || '@example.com', 'bulk' || $1 || '_' || n, 'x' FROM generate_series(1, $2) AS n
     RETURNING id`,
    [tag, count],
  );
  return rows.map((r) => r.id);
}

describe('friends (DESIGN 2.10)', () => {
  let a: TestUser;
  let b: TestUser;
  beforeEach(async () => {
    [a, b] = await Promise.all([createUser(), createUser()]);
  });

  it('sends a request: 201 outgoing for the asker, incoming for the other, with who and since', async () => {
    const res = await ask(a, b.id);
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body.data).sort(), ['since', 'status', 'user']);
    assert.deepEqual(res.body.data.user, who(b));
    assert.equal(res.body.data.status, 'outgoing');
    assert.match(res.body.data.since, ISO_UTC);

    const outgoing = await list(a, '?status=outgoing');
    assert.deepEqual(outgoing.body.data.map((f: any) => [f.user.id, f.status, f.since]), [[b.id, 'outgoing', res.body.data.since]]);
    const incoming = await list(b, '?status=incoming');
    assert.equal(incoming.body.data.length, 1);
    const item = incoming.body.data[0];
    assert.deepEqual(Object.keys(item).sort(), ['online', 'since', 'status', 'user']);
    assert.deepEqual(item.user, { id: a.id, username: a.username, avatar_url: `http://chess.test/v1/users/${a.id}/avatar.svg`, rating: 1500 });
    assert.equal(item.status, 'incoming');
    assert.equal(incoming.body.pagination.total, 1);
    // Not friends yet: the default list is empty for both.
    assert.deepEqual((await list(a)).body.data, []);
    assert.equal((await list(b)).body.pagination.total, 0);
  });

  it('answers a repeated request 200 with the same state and the same since', async () => {
    const first = await ask(a, b.id);
    const again = await ask(a, b.id);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.data, first.body.data);
  });

  it('makes friends when the other asks back: 200 friends, a new since, on both lists', async () => {
    const request = await ask(a, b.id);
    const accept = await ask(b, a.id);
    assert.equal(accept.status, 200);
    assert.deepEqual(accept.body.data.user, who(a));
    assert.equal(accept.body.data.status, 'friends');
    assert.ok(accept.body.data.since >= request.body.data.since);
    for (const [me, other] of [[a, b], [b, a]] as const) {
      const friends = await list(me);
      assert.deepEqual(friends.body.data.map((f: any) => [f.user.id, f.status, f.since]), [[other.id, 'friends', accept.body.data.since]]);
    }
    assert.deepEqual((await list(a, '?status=outgoing')).body.data, []);
    // Asking a friend again changes nothing.
    const again = await ask(a, b.id);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.data, { user: who(b), status: 'friends', since: accept.body.data.since });
  });

  it('refuses yourself (400), an unknown user and a malformed id (404 USER_NOT_FOUND)', async () => {
    const self = await ask(a, a.id);
    assert.equal(self.status, 400);
    assert.equal(self.body.error.code, 'VALIDATION_ERROR');
    for (const id of [randomUUID(), 'not-a-uuid']) {
      for (const res of [await ask(a, id), await unfriend(a, id)]) {
        assert.equal(res.status, 404);
        assert.equal(res.body.error.code, 'USER_NOT_FOUND');
      }
    }
  });

  it('unfriends, withdraws a request and declines one with 204; no relation is 404 NOT_FOUND', async () => {
    await ask(a, b.id);
    assert.equal((await unfriend(a, b.id)).status, 204, 'withdrawn');
    assert.deepEqual((await list(b, '?status=incoming')).body.data, []);
    await ask(a, b.id);
    assert.equal((await unfriend(b, a.id)).status, 204, 'declined');
    assert.deepEqual((await list(a, '?status=outgoing')).body.data, []);
    await ask(a, b.id);
    await ask(b, a.id);
    assert.equal((await unfriend(b, a.id)).status, 204, 'unfriended');
    assert.deepEqual((await list(a)).body.data, []);
    const none = await unfriend(a, b.id);
    assert.equal(none.status, 404);
    assert.equal(none.body.error.code, 'NOT_FOUND');
  });

  it('needs a token everywhere (401)', async () => {
    for (const [method, path] of [['GET', '/v1/friends'], ['POST', `/v1/friends/${b.id}`], ['DELETE', `/v1/friends/${b.id}`]]) {
      assert.equal((await api(method, path)).status, 401, `${method} ${path}`);
    }
  });

  it('validates the list query and pages it, newest since first (order=asc reverses)', async () => {
    const bad = await list(a, '?status=blocked');
    assert.equal(bad.status, 400);
    assert.ok(bad.body.error.details.status);
    const others = await Promise.all([createUser(), createUser(), createUser()]);
    for (const o of others) await ask(a, o.id);
    const page1 = await list(a, '?status=outgoing&limit=2');
    assert.deepEqual(page1.body.data.map((f: any) => f.user.id), [others[2].id, others[1].id]);
    assert.deepEqual([page1.body.pagination.total, page1.body.pagination.total_pages], [3, 2]);
    const page2 = await list(a, '?status=outgoing&limit=2&page=2');
    assert.deepEqual(page2.body.data.map((f: any) => f.user.id), [others[0].id]);
    const asc = await list(a, '?status=outgoing&order=asc');
    assert.deepEqual(asc.body.data.map((f: any) => f.user.id), others.map((o) => o.id));
  });

  it('refuses a 101st pending request with 409 FRIEND_LIMIT, and lets it through once one is withdrawn', async () => {
    const targets = await insertUsers(101);
    await sql(
      `INSERT INTO friendships (user_low, user_high, status, requested_by, since)
       SELECT least($1::uuid, t), greatest($1::uuid, t), 'pending', $1, now() FROM unnest($2::uuid[]) AS t`,
      [a.id, targets.slice(0, 100)],
    );
    const over = await ask(a, targets[100]);
    assert.equal(over.status, 409);
    assert.equal(over.body.error.code, 'FRIEND_LIMIT');
    // Accepting someone else's request is not a request of one's own.
    await ask(b, a.id);
    assert.equal((await ask(a, b.id)).body.data.status, 'friends');
    assert.equal((await unfriend(a, targets[0])).status, 204);
    assert.equal((await ask(a, targets[100])).status, 201);
  });

  it('refuses an acceptance that would give either side a 1,001st friend (409 FRIEND_LIMIT)', async () => {
    const friends = await insertUsers(1000);
    const befriend = (userId: string) =>
      sql(
        `INSERT INTO friendships (user_low, user_high, status, requested_by, since)
         SELECT least($1::uuid, t), greatest($1::uuid, t), 'friends', $1, now() FROM unnest($2::uuid[]) AS t`,
        [userId, friends],
      );
    // The asker (b) has 1,000 friends: a cannot accept.
    await befriend(b.id);
    await ask(b, a.id);
    const full = await ask(a, b.id);
    assert.equal(full.status, 409);
    assert.equal(full.body.error.code, 'FRIEND_LIMIT');
    // The accepter (c) has 1,000 friends.
    const c = await createUser();
    await befriend(c.id);
    await ask(a, c.id);
    assert.equal((await ask(c, a.id)).body.error.code, 'FRIEND_LIMIT');
    assert.equal((await list(c, '?status=incoming')).body.pagination.total, 1, 'the request is still there');
  });

  it('limits friend requests to 10 a minute per user (429 RATE_LIMIT_EXCEEDED), against spam', async () => {
    const targets = await insertUsers(11);
    for (const id of targets.slice(0, 10)) assert.equal((await ask(a, id)).status, 201);
    const over = await ask(a, targets[10]);
    assert.equal(over.status, 429);
    assert.equal(over.body.error.code, 'RATE_LIMIT_EXCEEDED');
    assert.equal(over.headers.get('x-ratelimit-limit'), '10');
    assert.equal((await list(a, '?status=outgoing')).body.pagination.total, 10, 'the refused request changed nothing');
  });

  describe('events', () => {
    const hooks = receiverPerTest();

    const hook = async (user: TestUser) => {
      const res = await api('POST', '/v1/webhooks', as(user, { url: hooks.url, events: ['friend.request', 'friend.accepted'], secret: 'friends-test-secret' }));
      assert.equal(res.status, 201);
    };
    const ofType = (type: string) => (r: Received) => r.json?.type === type;

    it('tells the asked user (webhook and user channel) once, and the asker once when accepted', async () => {
      await hook(a);
      await hook(b);
      const [ra, rb] = await Promise.all([subscribeUser(a), subscribeUser(b)]);
      await ask(a, b.id);
      await ask(a, b.id); // already asked: nothing new
      const request = await rb.next('friend_request');
      assert.deepEqual({ ...request, ts: 0 }, { channel: `user:${b.id}`, type: 'friend_request', from: who(a), ts: 0 });
      const [requestHook] = await hooks.receiver.waitFor(1, ofType('friend.request'));
      assert.deepEqual(requestHook.json.data, { from: who(a) });

      await ask(b, a.id);
      await ask(b, a.id); // already friends: nothing new
      const accepted = await ra.next('friend_accepted');
      assert.deepEqual({ ...accepted, ts: 0 }, { channel: `user:${a.id}`, type: 'friend_accepted', user: who(b), ts: 0 });
      const [acceptedHook] = await hooks.receiver.waitFor(1, ofType('friend.accepted'));
      assert.deepEqual(acceptedHook.json.data, { user: who(b) });
      await unfriend(a, b.id); // no event for an ending
      // A marker after it: the next thing each hears is this new request, nothing before it.
      await ask(b, a.id);
      assert.deepEqual((await ra.next()).type, 'friend_request', 'no event between the acceptance and the marker');
      await hooks.receiver.waitFor(3);
      assert.deepEqual(hooks.receiver.received.map((r) => r.json.type), ['friend.request', 'friend.accepted', 'friend.request']);
      assert.deepEqual(rb.pending, [], 'b was told of nothing after the request');
      ra.close();
      rb.close();
    });

    it('tells the asked user of one asker\u2019s requests once per cooldown, however often they are withdrawn or declined and sent again', async () => {
      // The friend routes on the service's own database, bus and webhook outbox, with a clock of the test's.
      const { service, config } = await testService();
      const clock = new ManualClock(Date.now());
      const friends = createFriends({ ...service.ctx, clock }, service.services.presence);
      const app = await startApp({
        routes: friendRoutes({ friends } as Services),
        deps: { authenticate: service.services.auth.authenticate, rateLimit: async () => {} },
      });
      const call = async (user: TestUser, method: string, to: TestUser) =>
        (await fetch(`${app.url}/v1/friends/${to.id}`, { method, headers: { authorization: `Bearer ${user.accessToken}` } })).status;
      try {
        await hook(b);
        const rb = await subscribeUser(b);
        for (let i = 0; i < 5; i++) {
          assert.equal(await call(a, 'POST', b), 201, 'the request is made each time');
          // Withdrawn, or declined: either way a new request follows.
          assert.equal(i % 2 ? await call(b, 'DELETE', a) : await call(a, 'DELETE', b), 204);
        }
        await clock.advance(config.friendRequestCooldownMs - 1);
        assert.equal(await call(a, 'POST', b), 201);
        assert.equal((await list(b, '?status=incoming')).body.data[0].user.id, a.id, 'b sees the request when looking');
        // A marker: another user's request, told at once. Before it, a's one request and nothing else.
        const c = await createUser();
        assert.equal((await ask(c, b.id)).status, 201);
        assert.deepEqual((await rb.next('friend_request')).from, who(a));
        assert.deepEqual((await rb.next('friend_request')).from, who(c), 'one push for a\u2019s six requests');
        await hooks.receiver.waitFor(1, (r) => r.json?.data?.from?.id === c.id);
        const { rows } = await sql(`SELECT count(*)::int AS n FROM outbox WHERE topic = 'friend.request' AND user_ids @> ARRAY[$1]::uuid[]`, [b.id]);
        assert.equal(rows[0].n, 2, 'one friend.request for a, one for c');
        assert.equal(hooks.receiver.received.filter((r) => r.json?.data?.from?.id === a.id).length, 1);

        // Once the cooldown has passed, a request is news again.
        await clock.advance(1);
        assert.equal(await call(a, 'DELETE', b), 204);
        assert.equal(await call(a, 'POST', b), 201);
        assert.deepEqual((await rb.next('friend_request')).from, who(a));
        await hooks.receiver.waitFor(2, (r) => r.json?.data?.from?.id === a.id);
        rb.close();
      } finally {
        await app.close();
      }
    });

    it('makes two people who ask each other at the same moment friends once, with one friend.accepted', async () => {
      await hook(a);
      await hook(b);
      const pairs = await Promise.all(Array.from({ length: 5 }, () => Promise.all([createUser(), createUser()])));
      for (const [x, y] of [[a, b], ...pairs]) {
        const [one, two] = await Promise.all([ask(x, y.id), ask(y, x.id)]);
        assert.deepEqual([one.status, two.status].sort(), [200, 201], 'one request, one acceptance');
        assert.deepEqual([one.body.data.status, two.body.data.status].sort(), ['friends', 'outgoing']);
        assert.equal((await list(x)).body.pagination.total, 1);
      }
      // Each pair's events, as written in the transactions that made them: one request, one acceptance.
      for (const [x, y] of [[a, b], ...pairs]) {
        const { rows } = await sql(
          `SELECT topic FROM outbox WHERE topic LIKE 'friend.%' AND user_ids && ARRAY[$1, $2]::uuid[] ORDER BY id`,
          [x.id, y.id],
        );
        assert.deepEqual(rows.map((r) => r.topic), ['friend.request', 'friend.accepted']);
      }
      const delivered = await hooks.receiver.waitFor(2);
      assert.deepEqual(delivered.map((r) => r.json.type).sort(), ['friend.accepted', 'friend.request']);
    });
  });

  describe('online', () => {
    // Straight into the database: accepting through the API would be an authenticated request of y's.
    const befriend = (x: TestUser, y: TestUser) =>
      sql(`INSERT INTO friendships (user_low, user_high, status, requested_by, since) VALUES (least($1::uuid, $2::uuid), greatest($1::uuid, $2::uuid), 'friends', $1, now())`, [
        x.id,
        y.id,
      ]);

    it('is false for someone who never showed up, true after an authenticated request, false 5 minutes later', async () => {
      await befriend(a, b);
      // b has only logged in (login issues tokens; it is not an authenticated request).
      assert.equal((await list(a)).body.data[0].online, false);
      await api('GET', '/v1/users/me', as(b));
      // The write is beside the request, not on its path.
      await until('b to be online', async () => (await list(a)).body.data[0].online);
      await sql(`UPDATE users SET last_seen_at = now() - interval '301 seconds' WHERE id = $1`, [b.id]);
      assert.equal((await list(a)).body.data[0].online, false);
    });

    it('is null, never shown, on requests either way: a request does not buy a view of someone\u2019s presence', async () => {
      await ask(a, b.id);
      const rb = await subscribeUser(b);
      await api('GET', '/v1/users/me', as(b));
      await api('GET', '/v1/users/me', as(a));
      const { service } = await testService();
      await service.services.presence.flush();
      for (const [me, status] of [[a, 'outgoing'], [b, 'incoming']] as const) {
        const [item] = (await list(me, `?status=${status}`)).body.data;
        assert.ok('online' in item, 'the key stays, null');
        assert.equal(item.online, null, `${status}: online is for friends only`);
      }
      // The same two as friends see each other.
      await ask(b, a.id);
      await until('b to show online to a', async () => (await list(a)).body.data[0].online === true);
      rb.close();
    });

    it('stays true while the user has a live socket, however quiet', async () => {
      await befriend(a, b);
      const rb = await subscribeUser(b);
      const { service } = await testService();
      await sql(`UPDATE users SET last_seen_at = now() - interval '301 seconds' WHERE id = $1`, [b.id]);
      // The minute's presence write of every live socket on this node.
      await service.services.presence.flush();
      assert.equal((await list(a)).body.data[0].online, true);
      rb.close();
      await rb.closed;
      // Once the service has seen the socket go, the minute's write no longer covers b.
      await until('b to be offline', async () => {
        await sql(`UPDATE users SET last_seen_at = now() - interval '301 seconds' WHERE id = $1`, [b.id]);
        await service.services.presence.flush();
        return !(await list(a)).body.data[0].online;
      });
    });
  });
});
