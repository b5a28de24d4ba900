import assert from 'node:assert/strict';
import fc from 'fast-check';
import { as, createActiveGame } from '../helpers/games.ts';
import { api, newIp } from '../helpers/http.ts';
import { receiverPerTest } from '../support/receiver.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { subscribeUser, WsClient } from '../helpers/ws.ts';

/** Ids are UUIDs, and a UUID's hex digits may be written in either case (RFC 9562); ours are lower-case. */
const upper = (id: string) => id.toUpperCase();
/** The same id with the letters `mask` picks upper-cased. */
const spelling = (id: string) =>
  fc.array(fc.boolean(), { minLength: id.length, maxLength: id.length }).map((mask) => [...id].map((c, i) => (mask[i] ? c.toUpperCase() : c)).join(''));
const anonymous = () => ({ ip: newIp() });
const ask = (from: TestUser, to: string) => api('POST', `/v1/friends/${to}`, as(from));

/**
 * Whether asking `them` by their upper-cased id turns the pair's order around when the ids are
 * compared as text (lower-case letters sort after upper-case ones, digits before both).
 */
const flips = (me: string, them: string) => me < them !== me < upper(them);

/** Two new users, `me` asking `them`, whose order the upper-casing flips (or not, as asked). */
async function pairWhere(flipping: boolean): Promise<[TestUser, TestUser]> {
  const made: TestUser[] = [];
  for (;;) {
    made.push(await createUser());
    for (const me of made) for (const them of made) if (me !== them && flips(me.id, them.id) === flipping) return [me, them];
  }
}

describe('ids written in any case (DESIGN 2.8)', () => {
  const hooks = receiverPerTest();

  it('routes any case variant of an id to the same resource: game, move, user, club, tournament, webhook', async () => {
    const [w, b, owner] = await Promise.all([createUser(), createUser(), createUser()]);
    const game = await createActiveGame(w, b);
    const club = await api('POST', '/v1/clubs', as(owner, { name: `Cases ${Date.now() % 1e6}`.replace(/\d/g, (d) => 'bcdfghjkmn'[Number(d)]) }));
    assert.equal(club.status, 201, club.text);
    const arena = await api('POST', '/v1/tournaments', as(owner, {
      name: 'Arena of cases', time_control: 'blitz', initial_time: 180, increment: 2, starts_at: new Date(Date.now() + 600_000).toISOString(), duration_minutes: 30,
    }));
    assert.equal(arena.status, 201, arena.text);
    const hook = await api('POST', '/v1/webhooks', as(owner, { url: hooks.url, events: ['game.move'], secret: 'a-secret-of-the-cases-test' }));
    assert.equal(hook.status, 201, hook.text);
    const stream = await WsClient.open(`/v1/games/${game.id}/stream`);
    await stream.next('state');
    // A line without a repeated position: each run plays its next ply through a spelling of the id.
    const line = ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'f8c5', 'c2c3', 'g8f6', 'd2d3', 'd7d6', 'h2h3', 'h7h6', 'a2a3', 'a7a6', 'b2b4', 'b7b5'];
    let ply = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({ game: spelling(game.id), user: spelling(w.id), club: spelling(club.body.data.id), arena: spelling(arena.body.data.id), hook: spelling(hook.body.data.id) }),
        async (v) => {
          assert.equal((await api('GET', `/v1/games/${v.game}`, as(w))).body.data?.id, game.id);
          assert.equal((await api('GET', `/v1/users/${v.user}`, as(b))).body.data?.id, w.id);
          assert.equal((await api('GET', `/v1/clubs/${v.club}`, anonymous())).body.data?.id, club.body.data.id);
          assert.equal((await api('GET', `/v1/tournaments/${v.arena}`, anonymous())).body.data?.id, arena.body.data.id);
          assert.equal((await api('GET', `/v1/webhooks/${v.hook}`, as(owner))).body.data?.id, hook.body.data.id);
          const uci = line[ply++];
          const moved = await api('POST', `/v1/games/${v.game}/moves`, as(ply % 2 === 1 ? w : b, { from: uci.slice(0, 2), to: uci.slice(2) }));
          assert.equal(moved.status, 200, moved.text);
          // The one room of the game played it: the stream of its own id shows the move.
          assert.equal((await stream.next('move')).v, ply);
          await stream.next('time_update');
        },
      ),
      // Each run plays a move: a failing run is not replayed smaller, the game has moved on.
      { numRuns: line.length, endOnFailure: true },
    );
    stream.close();
  });

  it('answers a malformed id in a path 404 of the resource, never 400 or 500', async () => {
    const user = await createUser();
    const cases: Array<[string, string, string]> = [
      ['GET', '/v1/games/not-a-uuid', 'GAME_NOT_FOUND'],
      ['POST', '/v1/games/123/moves', 'GAME_NOT_FOUND'],
      ['GET', '/v1/users/zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz', 'USER_NOT_FOUND'],
      ['POST', '/v1/friends/x', 'USER_NOT_FOUND'],
      ['DELETE', '/v1/friends/x', 'USER_NOT_FOUND'],
      ['GET', '/v1/clubs/%20', 'CLUB_NOT_FOUND'],
      ['GET', '/v1/clubs/x/members', 'CLUB_NOT_FOUND'],
      ['GET', '/v1/tournaments/x', 'TOURNAMENT_NOT_FOUND'],
      ['GET', '/v1/webhooks/x', 'WEBHOOK_NOT_FOUND'],
    ];
    for (const [method, path, code] of cases) {
      const res = await api(method, path, as(user, method === 'POST' ? { from: 'e2', to: 'e4' } : undefined));
      assert.deepEqual([res.status, res.body.error?.code], [404, code], `${method} ${path}: ${res.text}`);
    }
  });

  it('tells the user challenged by their upper-cased id, on their channel', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const rb = await subscribeUser(b);
    const res = await api('POST', '/v1/games', as(a, { type: 'challenge', opponent_id: upper(b.id), time_control: 'blitz', initial_time: 300, increment: 0, color: 'white' }));
    assert.equal(res.status, 201, res.text);
    assert.equal((await rb.next('challenge_received')).game_id, res.body.data.id);
    assert.equal(res.body.data.black_player?.id ?? b.id, b.id);
    rb.close();
  });

  describe('friends', () => {
    it('refuses your own id upper-cased as it refuses your own id: 400', async () => {
      const a = await createUser();
      for (const id of [a.id, upper(a.id)]) {
        const res = await ask(a, id);
        assert.deepEqual([res.status, res.body.error?.code, res.body.error?.details], [400, 'VALIDATION_ERROR', { user_id: ['must not be your own id'] }], res.text);
      }
    });

    it('asks a user by their upper-cased id when that turns the ids\u2019 text order around: 201, then friends', async () => {
      const [a, b] = await pairWhere(true);
      const request = await ask(a, upper(b.id));
      assert.equal(request.status, 201, request.text);
      assert.deepEqual(request.body.data.user.id, b.id);
      const accept = await ask(b, upper(a.id));
      assert.deepEqual([accept.status, accept.body.data.status], [200, 'friends'], accept.text);
      const friends = await api('GET', '/v1/friends', as(a));
      assert.deepEqual(friends.body.data.map((f: any) => f.user.id), [b.id]);
      assert.equal((await api('DELETE', `/v1/friends/${upper(b.id)}`, as(a))).status, 204);
      assert.deepEqual((await api('GET', '/v1/friends', as(a))).body.data, []);
    });

    it('tells the user asked by their upper-cased id, on their channel', async () => {
      const [a, b] = await pairWhere(false);
      const rb = await subscribeUser(b);
      const res = await ask(a, upper(b.id));
      assert.equal(res.status, 201, res.text);
      const pushed = await rb.next('friend_request');
      assert.deepEqual(pushed.from, { id: a.id, username: a.username });
      rb.close();
    });
  });
});
