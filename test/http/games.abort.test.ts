import assert from 'node:assert/strict';
import { Client, type Room } from '@colyseus/sdk';
import { api } from '../helpers/http.ts';
import { as, createActiveGame, getGame, play, type ActiveGame } from '../helpers/games.ts';
import { expectError, expectOk, nextMessage } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const abort = (id: string, user: TestUser) => api('POST', `/v1/games/${id}/abort`, as(user));

describe('aborting a game (DESIGN 2.11)', () => {
  let a: TestUser;
  let b: TestUser;
  let game: ActiveGame;
  beforeEach(async () => {
    [a, b] = await Promise.all([createUser(), createUser()]);
    game = await createActiveGame(a, b, { rated: true });
  });

  describe('POST /games/{id}/abort', () => {
    it('abandons a game nobody has moved in: 200, abort_reason aborted, unrated', async () => {
      const res = await abort(game.id, game.black);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data, { status: 'abandoned', result: null, winner: null, termination: null, rating_changes: { white: 0, black: 0 } });
      const detail = (await getGame(game.id, a)).body.data;
      assert.deepEqual([detail.status, detail.abort_reason, detail.result, detail.rating_changes], ['abandoned', 'aborted', null, null]);
      const { service } = await testService();
      const { rows } = await service.ctx.pool.query(
        `SELECT count(*)::int AS n FROM user_ratings WHERE user_id = ANY($1::uuid[]) AND games > 0`,
        [[a.id, b.id]],
      );
      assert.equal(rows[0].n, 0, 'no rating changed');
    });

    it("may still abort after White's first move, before Black's", async () => {
      await play(game, game.white, 'e2', 'e4');
      const res = await abort(game.id, game.white);
      assert.equal(res.status, 200, res.text);
      assert.equal((await getGame(game.id, a)).body.data.abort_reason, 'aborted');
    });

    it('refuses once both sides have moved: 409 GAME_NOT_ABORTABLE, the game goes on', async () => {
      await play(game, game.white, 'e2', 'e4');
      await play(game, game.black, 'e7', 'e5');
      const res = await abort(game.id, game.black);
      assert.equal(res.status, 409);
      assert.equal(res.body.error.code, 'GAME_NOT_ABORTABLE');
      assert.equal((await getGame(game.id, a)).body.data.status, 'active');
    });

    it('refuses a game already over (409 GAME_NOT_ACTIVE), a stranger (403), an unknown game (404)', async () => {
      const stranger = await createUser();
      const other = await abort(game.id, stranger);
      assert.deepEqual([other.status, other.body.error.code], [403, 'NOT_A_PLAYER']);
      await abort(game.id, a);
      const again = await abort(game.id, a);
      assert.deepEqual([again.status, again.body.error.code], [409, 'GAME_NOT_ACTIVE']);
      const unknown = await abort('00000000-0000-4000-8000-000000000000', a);
      assert.deepEqual([unknown.status, unknown.body.error.code], [404, 'GAME_NOT_FOUND']);
    });

    it('says abort_reason aborted in the game.finished webhook event', async () => {
      const res = await abort(game.id, a);
      assert.equal(res.status, 200);
      const { service } = await testService();
      const { rows } = await service.ctx.pool.query(`SELECT payload FROM outbox WHERE topic = 'game.finished' AND game_id = $1`, [game.id]);
      assert.equal(rows[0].payload.abort_reason, 'aborted', 'the game.finished webhook says why');
    });
  });

  describe('the room message abort', () => {
    let sdk: Client;
    const rooms: Room[] = [];
    beforeEach(async () => {
      sdk = new Client((await testService()).service.url.replace('http', 'ws'));
    });
    afterEach(async () => {
      await Promise.all(rooms.splice(0).map((r) => r.leave().catch(() => {})));
    });
    const join = async (user: TestUser) => {
      const room = await sdk.joinById(game.id, { token: user.accessToken });
      rooms.push(room);
      await new Promise<void>((resolve) => ((room.state as any)?.fen ? resolve() : room.onStateChange.once(() => resolve())));
      return room;
    };

    it('answers abort:ok and ends the game for everyone in the room with abort_reason aborted', async () => {
      const [w, bl] = [await join(game.white), await join(game.black)];
      const ended = nextMessage(w, 'game_end');
      const ok = await expectOk(bl, 'abort');
      assert.deepEqual([ok.status, ok.termination, ok.rating_changes], ['abandoned', null, { white: 0, black: 0 }]);
      const end = await ended;
      assert.deepEqual([end.status, end.abort_reason], ['abandoned', 'aborted']);
    });

    it('answers GAME_NOT_ABORTABLE once both sides have moved', async () => {
      const w = await join(game.white);
      await expectOk(w, 'move', { from: 'e2', to: 'e4' });
      await play(game, game.black, 'e7', 'e5');
      const error = await expectError(w, 'abort');
      assert.equal(error.code, 'GAME_NOT_ABORTABLE');
    });
  });
});
