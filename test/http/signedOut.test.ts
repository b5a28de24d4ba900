// DESIGN 2.14 "Signed out": profiles and a finished game's analysis are read without a token, as
// on Lichess; the account stays private, and /users/me and user search stay authenticated.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { as, challenge, createActiveGame, playLine } from '../helpers/games.ts';
import { api, newIp, type ApiResponse } from '../helpers/http.ts';
import { createUser, uniqueEmail } from '../helpers/users.ts';

const PUBLIC_KEYS = ['avatar_url', 'bot', 'country', 'created_at', 'full_name', 'id', 'provisional', 'puzzle_rating', 'rating', 'ratings', 'stats', 'updated_at', 'username'];
const PRIVATE_FIELDS = ['email', 'email_verified', 'pending_email'];

/** Without a token, from an address of its own. */
const anonymous = (path: string) => api('GET', `/v1${path}`, { ip: newIp() });

function assertRefused(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, code);
  assert.equal(typeof res.body.error.message, 'string');
}

/** The public profile and nothing of the account: none of its fields, not the address anywhere in the text. */
function assertPublicProfile(res: ApiResponse, user: { id: string; email: string }): void {
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.success, true);
  assert.deepEqual(Object.keys(res.body.data).sort(), PUBLIC_KEYS);
  assert.equal(res.body.data.id, user.id);
  for (const field of PRIVATE_FIELDS) assert.equal(field in res.body.data, false, `no ${field}`);
  assert.ok(!res.text.toLowerCase().includes(user.email.toLowerCase()), 'the address appears nowhere');
}

describe('signed out (DESIGN 2.14)', () => {
  describe('profiles', () => {
    it('answers GET /users/{id} with the public profile, and nothing private, even while a new address waits', async () => {
      const user = await createUser({ full_name: 'Vera Menchik' });
      const waiting = uniqueEmail('waiting');
      assert.equal((await api('POST', '/v1/users/me/email', as(user, { password: user.password, email: waiting }))).status, 200);
      const res = await anonymous(`/users/${user.id}`);
      assertPublicProfile(res, user);
      assert.equal(res.body.data.full_name, 'Vera Menchik');
      assert.ok(!res.text.includes(waiting), 'nor the address waiting for confirmation');
    });

    it('answers GET /users/by-username/{username} with the same public profile, in any case', async () => {
      const user = await createUser();
      const res = await anonymous(`/users/by-username/${user.username.toUpperCase()}`);
      assertPublicProfile(res, user);
      assert.equal(res.body.data.username, user.username);
    });

    it('gives a signed-in caller what it gave before: the same public profile', async () => {
      const [user, viewer] = [await createUser(), await createUser()];
      const signedIn = await api('GET', `/v1/users/${user.id}`, as(viewer));
      assert.equal(signedIn.status, 200, signedIn.text);
      assert.deepEqual(signedIn.body, (await anonymous(`/users/${user.id}`)).body);
    });

    it('answers 404 USER_NOT_FOUND for an unknown, malformed or unknown-name profile', async () => {
      assertRefused(await anonymous(`/users/${randomUUID()}`), 404, 'USER_NOT_FOUND');
      assertRefused(await anonymous('/users/not-a-uuid'), 404, 'USER_NOT_FOUND');
      assertRefused(await anonymous(`/users/by-username/${'ghost_'.repeat(5)}`), 404, 'USER_NOT_FOUND');
    });

    it('still refuses a bad token with 401 UNAUTHORIZED (a client refreshes it rather than reading on as nobody)', async () => {
      const user = await createUser();
      assertRefused(await api('GET', `/v1/users/${user.id}`, { token: 'not-a-token', ip: newIp() }), 401, 'UNAUTHORIZED');
    });
  });

  describe('what stays authenticated', () => {
    it('answers /users/me and user search with 401 UNAUTHORIZED', async () => {
      assertRefused(await anonymous('/users/me'), 401, 'UNAUTHORIZED');
      assertRefused(await anonymous('/users/search?q=ab'), 401, 'UNAUTHORIZED');
    });
  });

  describe("a game's analysis", () => {
    it("reads a finished game's analysis: 202 with its progress while it is made, as to anyone", async () => {
      const [a, b] = [await createUser(), await createUser()];
      const game = await createActiveGame(a, b);
      await playLine(game, ['e2e4', 'e7e5']);
      assert.equal((await api('POST', `/v1/games/${game.id}/resign`, as(b))).status, 200);
      const res = await anonymous(`/games/${game.id}/analysis`);
      assert.equal(res.status, 202, res.text);
      assert.deepEqual(res.body, { success: true, data: { game_id: game.id, status: 'queued', progress: { done: 0, total: 3 } } });
      assert.deepEqual(res.body, (await api('GET', `/v1/games/${game.id}/analysis`, as(a))).body, 'what a player reads');
    });

    it('refuses an active game with 409 GAME_NOT_FINISHED and a pending challenge with 404 GAME_NOT_FOUND', async () => {
      const [a, b] = [await createUser(), await createUser()];
      const active = await createActiveGame(a, b);
      assertRefused(await anonymous(`/games/${active.id}/analysis`), 409, 'GAME_NOT_FINISHED');
      const [c, d] = [await createUser(), await createUser()];
      assertRefused(await anonymous(`/games/${await challenge(c, d)}/analysis`), 404, 'GAME_NOT_FOUND');
      assertRefused(await anonymous('/games/not-a-uuid/analysis'), 404, 'GAME_NOT_FOUND');
    });
  });
});
