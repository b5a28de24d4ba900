import assert from 'node:assert/strict';
import { AppError } from '../../src/errors.ts';
import { lichessError } from '../../src/lichess/errors.ts';
import { nestDottedKeys } from '../../src/lichess/route.ts';
import { statusName } from '../../src/lichess/shapes.ts';
import { api } from '../helpers/http.ts';

describe("Lichess's conventions (DESIGN 2.13)", () => {
  it('reads dotted form keys as nested objects, leaving a JSON body that is nested already as it is', () => {
    assert.deepEqual(nestDottedKeys({ 'clock.limit': '300', 'clock.increment': '2', rated: 'true' }), { clock: { limit: '300', increment: '2' }, rated: 'true' });
    assert.deepEqual(nestDottedKeys({ clock: { limit: 300 } }), { clock: { limit: 300 } });
    assert.deepEqual(nestDottedKeys({ clock: { limit: 300 }, 'clock.limit': '60' }), { clock: { limit: 300 } }, 'a nested key is not overwritten');
    assert.deepEqual(nestDottedKeys(undefined), {});
    assert.deepEqual(nestDottedKeys(['a']), {});
  });

  it('answers errors as Lichess does: {"error"} with 400 for what the rules refuse, 401, 403, 404, 429 with Retry-After', () => {
    assert.deepEqual(lichessError(new AppError('NOT_YOUR_TURN', 'Not your turn')), { status: 400, body: { error: 'Not your turn' }, headers: {} });
    assert.equal(lichessError(new AppError('GAME_NOT_ACTIVE', 'The game is finished')).status, 400);
    assert.equal(lichessError(new AppError('INVALID_MOVE', 'Illegal move')).status, 400);
    assert.deepEqual(lichessError(new AppError('UNAUTHORIZED', 'Invalid token')), { status: 401, body: { error: 'No such token' }, headers: { 'WWW-Authenticate': 'Bearer' } });
    assert.equal(lichessError(new AppError('MISSING_SCOPE', 'Missing scope: board:play')).status, 403);
    assert.equal(lichessError(new AppError('GAME_NOT_FOUND', 'Game not found')).status, 404);
    assert.deepEqual(lichessError(new AppError('RATE_LIMIT_EXCEEDED', 'Too many requests', undefined, { retryAfter: 7 })).headers, { 'Retry-After': '7' });
    assert.deepEqual(lichessError(new Error('boom')), { status: 500, body: { error: 'Internal server error' }, headers: {} });
  });

  it("names a game's status as Lichess does: a flag is outoftime, a claim against a player who left is timeout", () => {
    assert.equal(statusName({ status: 'active', termination: null }), 'started');
    assert.equal(statusName({ status: 'finished', termination: 'timeout' }), 'outoftime');
    assert.equal(statusName({ status: 'finished', termination: 'timeout' }, true), 'timeout');
    assert.equal(statusName({ status: 'finished', termination: 'checkmate' }), 'mate');
    assert.equal(statusName({ status: 'finished', termination: 'repetition' }), 'draw');
    assert.equal(statusName({ status: 'abandoned', termination: null, abortReason: 'no_first_move' }), 'noStart');
    assert.equal(statusName({ status: 'abandoned', termination: null, abortReason: 'aborted' }), 'aborted');
  });
});

describe("Lichess's paths answer every failure in Lichess's words, and leave /v1's alone", () => {
  it('answers a body that is not JSON, and a path that cannot be decoded, with {"error"}, under /lichess too', async () => {
    for (const prefix of ['', '/lichess']) {
      const bad = await api('POST', `${prefix}/api/challenge/someone`, { rawBody: '{"rated": tru', headers: { 'content-type': 'application/json' } });
      assert.equal(bad.status, 400, bad.text);
      assert.deepEqual(Object.keys(bad.body), ['error']);
      const undecodable = await api('POST', `${prefix}/api/board/game/%ZZ/resign`);
      assert.equal(undecodable.status, 400, undecodable.text);
      assert.deepEqual(Object.keys(undecodable.body), ['error']);
    }
    const v1 = await api('POST', '/v1/games', { rawBody: '{"type": cha', headers: { 'content-type': 'application/json' } });
    assert.deepEqual([v1.status, v1.body.success, v1.body.error?.code], [400, false, 'VALIDATION_ERROR']);
  });
});

describe("Lichess's paths and the /api alias of /v1 (DESIGN 2.13, 2.1)", () => {
  it("answers Lichess's where both serve a path (/api/users/status, /v1's /users/:id under /api), and leaves /v1 and /api/v1 as they are", async () => {
    const lichess = await api('GET', '/api/users/status?ids=nobody_at_all');
    assert.deepEqual([lichess.status, lichess.body], [200, []], lichess.text);
    assert.deepEqual((await api('GET', '/lichess/api/users/status?ids=nobody_at_all')).body, []);
    for (const prefix of ['/v1', '/api/v1']) {
      const v1 = await api('GET', `${prefix}/users/status`);
      assert.equal(v1.body.success, false, `${prefix}: ${v1.text}`);
      assert.equal(typeof v1.body.error?.code, 'string', 'the /v1 envelope');
    }
    // Where Lichess has no path, /api is still /v1's alias.
    const alias = await api('GET', '/api/users/me');
    assert.deepEqual([alias.status, alias.body.success, alias.body.error?.code], [401, false, 'UNAUTHORIZED'], alias.text);
  });
});
