import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { as, challenge, createActiveGame, getGame, play, waitForGame } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const post = (path: string, user: TestUser, body?: unknown) => api('POST', path, as(user, body));

describe('Challenge lifecycle: accept, decline, cancel, expiry', () => {
  let a: TestUser; // the challenger (White)
  let b: TestUser; // the challenged player
  let c: TestUser; // a third user
  beforeEach(async () => {
    [a, b, c] = await Promise.all([createUser(), createUser(), createUser()]);
  });

  describe('accept', () => {
    it('starts the game: 200 with the active game detail, ratings seated, no moves yet', async () => {
      const id = await challenge(a, b);
      const res = await post(`/v1/games/${id}/accept`, b);
      assert.equal(res.status, 200, res.text);
      const g = res.body.data;
      assert.equal(g.id, id);
      assert.equal(g.status, 'active');
      assert.equal(g.white_player.id, a.id);
      assert.equal(g.black_player.id, b.id);
      assert.equal(g.white_player.rating, 1500);
      assert.equal(g.black_player.rating, 1500);
      assert.equal(g.move_count, 0);
      assert.equal(g.current_turn, 'white');
      assert.equal(g.expires_at, null);
      assert.equal(g.white_time_remaining, 300);
      assert.equal(g.black_time_remaining, 300);
    });

    it('opens the live room at once: White can move right after accepting', async () => {
      const id = await challenge(a, b);
      await post(`/v1/games/${id}/accept`, b);
      const data = await play(id, a, 'e2', 'e4');
      assert.equal(data.move.san, 'e4');
    });

    it('refuses the challenger (403 FORBIDDEN)', async () => {
      const id = await challenge(a, b);
      const res = await post(`/v1/games/${id}/accept`, a);
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'FORBIDDEN');
    });

    it('refuses a game that is no longer pending (409 GAME_NOT_PENDING)', async () => {
      const id = await challenge(a, b);
      assert.equal((await post(`/v1/games/${id}/accept`, b)).status, 200);
      const again = await post(`/v1/games/${id}/accept`, b);
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'GAME_NOT_PENDING');
      const decline = await post(`/v1/games/${id}/decline`, b);
      assert.equal(decline.body.error.code, 'GAME_NOT_PENDING');
      const cancel = await post(`/v1/games/${id}/cancel`, a);
      assert.equal(cancel.body.error.code, 'GAME_NOT_PENDING');
    });

    it('answers 409 PLAYER_BUSY when the accepting player is now in another active game', async () => {
      const first = await challenge(a, b);
      await createActiveGame(c, b);
      const res = await post(`/v1/games/${first}/accept`, b);
      assert.equal(res.status, 409);
      assert.equal(res.body.error.code, 'PLAYER_BUSY');
      assert.equal((await getGame(first, a)).body.data.status, 'pending');
    });

    it('answers 409 PLAYER_BUSY when the challenger is now in another active game', async () => {
      const first = await challenge(a, b);
      await createActiveGame(c, a);
      const res = await post(`/v1/games/${first}/accept`, b);
      assert.equal(res.status, 409);
      assert.equal(res.body.error.code, 'PLAYER_BUSY');
    });

    it('lets only one of two simultaneous accepts by the same player win', async () => {
      const [g1, g2] = [await challenge(a, b), await challenge(c, b)];
      const [r1, r2] = await Promise.all([post(`/v1/games/${g1}/accept`, b), post(`/v1/games/${g2}/accept`, b)]);
      assert.deepEqual([r1.status, r2.status].sort(), [200, 409]);
      assert.equal([r1, r2].find((r) => r.status === 409)!.body.error.code, 'PLAYER_BUSY');
    });
  });

  describe('decline and cancel', () => {
    it('decline by the challenged player abandons the game (abort_reason declined)', async () => {
      const id = await challenge(a, b);
      const res = await post(`/v1/games/${id}/decline`, b);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.status, 'abandoned');
      assert.equal(res.body.data.abort_reason, 'declined');
      assert.equal(res.body.data.result, null);
      assert.equal(res.body.data.winner, null);
      assert.equal(res.body.data.termination, null);
      assert.equal(res.body.data.rating_changes, null);
      assert.equal(res.body.data.expires_at, null);
    });

    it('refuses a decline by the challenger (403 FORBIDDEN)', async () => {
      const id = await challenge(a, b);
      const res = await post(`/v1/games/${id}/decline`, a);
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'FORBIDDEN');
    });

    it('cancel by the challenger abandons the game (abort_reason cancelled)', async () => {
      const id = await challenge(a, b);
      const res = await post(`/v1/games/${id}/cancel`, a);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.status, 'abandoned');
      assert.equal(res.body.data.abort_reason, 'cancelled');
    });

    it('refuses a cancel by the challenged player (403 FORBIDDEN)', async () => {
      const id = await challenge(a, b);
      const res = await post(`/v1/games/${id}/cancel`, b);
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'FORBIDDEN');
    });

    it('refuses to accept a declined or cancelled challenge (409 GAME_NOT_PENDING)', async () => {
      const declined = await challenge(a, b);
      await post(`/v1/games/${declined}/decline`, b);
      assert.equal((await post(`/v1/games/${declined}/accept`, b)).body.error.code, 'GAME_NOT_PENDING');
      const cancelled = await challenge(a, b);
      await post(`/v1/games/${cancelled}/cancel`, a);
      assert.equal((await post(`/v1/games/${cancelled}/accept`, b)).body.error.code, 'GAME_NOT_PENDING');
      assert.equal((await post(`/v1/games/${cancelled}/cancel`, a)).body.error.code, 'GAME_NOT_PENDING');
    });

    it('lets a third user see a declined game, but not act on it (403 FORBIDDEN)', async () => {
      const id = await challenge(a, b);
      await post(`/v1/games/${id}/decline`, b);
      assert.equal((await getGame(id, c)).status, 200);
      const res = await post(`/v1/games/${id}/accept`, c);
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'FORBIDDEN');
    });
  });

  describe('a pending game exists only for its participants', () => {
    const routes: [string, string, unknown?][] = [
      ['GET', ''],
      ['GET', '/pgn'],
      ['POST', '/accept'],
      ['POST', '/decline'],
      ['POST', '/cancel'],
      ['POST', '/moves', { from: 'e2', to: 'e4' }],
      ['PATCH', '/move', { from: 'e2', to: 'e4' }],
      ['POST', '/resign'],
      ['POST', '/draw'],
      ['POST', `/draw/${randomUUID()}`, { accept: true }],
    ];
    for (const [method, suffix, body] of routes) {
      const shown = suffix.replace(/[0-9a-f-]{36}/, '{offer_id}');
      it(`answers ${method} /games/{id}${shown} of someone else's pending game with 404 GAME_NOT_FOUND`, async () => {
        const id = await challenge(a, b);
        const res = await api(method, `/v1/games/${id}${suffix}`, as(c, body));
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.error.code, 'GAME_NOT_FOUND');
      });
    }

    it('shows the pending game to both participants', async () => {
      const id = await challenge(a, b);
      assert.equal((await getGame(id, a)).status, 200);
      assert.equal((await getGame(id, b)).status, 200);
    });
  });

  describe('unknown and malformed ids', () => {
    for (const [label, id] of [['an unknown', randomUUID()], ['a malformed', 'not-a-uuid'], ['a numeric', '123']]) {
      it(`answers read/pgn/accept/decline/cancel of ${label} id with 404 GAME_NOT_FOUND`, async () => {
        for (const [method, suffix] of [['GET', ''], ['GET', '/pgn'], ['POST', '/accept'], ['POST', '/decline'], ['POST', '/cancel']]) {
          const res = await api(method, `/v1/games/${id}${suffix}`, as(a));
          assert.equal(res.status, 404, `${method} ${suffix}: ${res.text}`);
          assert.equal(res.body.error.code, 'GAME_NOT_FOUND');
        }
      });
    }
  });

  describe('expiry', () => {
    it('abandons a challenge nobody answered within about a second of expires_at (abort_reason expired)', async function () {
      this.timeout(10_000);
      const created = await post('/v1/games', a, { type: 'challenge', opponent_id: b.id, time_control: 'blitz', initial_time: 300, increment: 0 });
      const { id, expires_at } = created.body.data;
      const deadline = Date.parse(expires_at);
      const g = await waitForGame(id, a, (x) => x.status !== 'pending', 5000);
      const seenAt = Date.now();
      assert.equal(g.status, 'abandoned');
      assert.equal(g.abort_reason, 'expired');
      assert.ok(seenAt - deadline <= 1_300, `expired ${seenAt - deadline} ms after its deadline`);
      assert.ok(Date.parse(g.updated_at) >= deadline - 5);
    });

    it('refuses to accept a challenge past its deadline (409 GAME_NOT_PENDING)', async function () {
      this.timeout(10_000);
      const { config } = await testService();
      const id = await challenge(a, b);
      // Real time: the deadline is the running service's, on its system clock.
      await new Promise((r) => setTimeout(r, config.challengeTtlMs + 50));
      const res = await post(`/v1/games/${id}/accept`, b);
      assert.equal(res.status, 409);
      assert.equal(res.body.error.code, 'GAME_NOT_PENDING');
    });
  });
});
