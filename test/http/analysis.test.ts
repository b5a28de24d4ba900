import assert from 'node:assert/strict';
import { as, challenge, createActiveGame, playLine } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

/**
 * GET /games/{id}/analysis before the analysis is made (the suite's shared service runs no
 * engine): 404, 409 and the 202 progress answer. The 200 answer, made by a real engine without
 * anyone asking, is test/system/analysisProcess.test.ts's.
 */
describe('GET /games/{id}/analysis (before the analysis)', () => {
  let a: TestUser;
  let b: TestUser;
  beforeEach(async () => {
    [a, b] = await Promise.all([createUser(), createUser()]);
  });
  const analysis = (id: string, user: TestUser = a) => api('GET', `/v1/games/${id}/analysis`, as(user));

  it('answers 404 GAME_NOT_FOUND for an unknown or malformed id', async () => {
    for (const id of ['6f1c2a4e-0d6b-4c47-9a59-2a4f1c0e9b11', 'not-a-uuid']) {
      const res = await analysis(id);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'GAME_NOT_FOUND');
    }
  });

  it('answers 409 GAME_NOT_FINISHED without a token too while the game is played (DESIGN 2.14: only a finished game\'s is public)', async () => {
    const { id } = await createActiveGame(a, b);
    const res = await api('GET', `/v1/games/${id}/analysis`);
    assert.equal(res.status, 409, res.text);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'GAME_NOT_FINISHED');
  });

  it('answers 404 to a stranger for a pending challenge, and 409 GAME_NOT_FINISHED to its players', async () => {
    const id = await challenge(a, b);
    const stranger = await createUser();
    assert.equal((await analysis(id, stranger)).body.error.code, 'GAME_NOT_FOUND');
    const res = await analysis(id, b);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'GAME_NOT_FINISHED');
  });

  it('answers 409 GAME_NOT_FINISHED while the game is being played', async () => {
    const game = await createActiveGame(a, b);
    await playLine(game, ['e2e4', 'e7e5']);
    const res = await analysis(game.id);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'GAME_NOT_FINISHED');
  });

  it('answers 409 GAME_NOT_FINISHED for a game that never really began (not analysed)', async () => {
    const id = await challenge(a, b);
    assert.equal((await api('POST', `/v1/games/${id}/decline`, as(b))).status, 200);
    const res = await analysis(id);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'GAME_NOT_FINISHED');
    assert.match(res.body.error.message, /aborted/);
  });

  it('answers 202 with the job queued, its progress and Retry-After once the game is over, to anyone', async () => {
    const game = await createActiveGame(a, b);
    await playLine(game, ['e2e4', 'e7e5', 'g1f3']);
    assert.equal((await api('POST', `/v1/games/${game.id}/resign`, as(b))).status, 200);
    const stranger = await createUser();
    const res = await analysis(game.id, stranger);
    assert.equal(res.status, 202);
    assert.deepEqual(res.body, { success: true, data: { game_id: game.id, status: 'queued', progress: { done: 0, total: 4 } } });
    assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  });
});
