import assert from 'node:assert/strict';
import { matchMaker } from '@colyseus/core';
import { Client, type Room } from '@colyseus/sdk';
import type { GameRoom } from '../../rooms/GameRoom.ts';
import { api } from '../helpers/http.ts';
import { as, createActiveGame, getGame, play, type ActiveGame } from '../helpers/games.ts';
import { expectError, expectOk, leaveRooms, nextMessage, plainState, statesSettle } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { WsClient } from '../helpers/ws.ts';

const claim = (id: string, user: TestUser, result: 'win' | 'draw' = 'win') => api('POST', `/v1/games/${id}/claim`, as(user, { result }));

/**
 * DESIGN 2.11: when a player who had joined the game's room has had no client in it for
 * CLAIM_SECONDS, the opponent may claim. The service's clock is skipped forward (and reset after
 * each test) instead of waiting 30 s.
 */
describe('claiming a game the opponent left (DESIGN 2.11)', () => {
  let a: TestUser;
  let b: TestUser;
  let game: ActiveGame;
  let sdk: Client;
  const rooms: Room[] = [];

  beforeEach(async () => {
    [a, b] = await Promise.all([createUser(), createUser()]);
    game = await createActiveGame(a, b, { rated: true });
    // Past the first moves: the game can no longer be aborted, nor lapse for a missing first move.
    await play(game, game.white, 'e2', 'e4');
    await play(game, game.black, 'e7', 'e5');
    sdk = new Client((await testService()).service.url.replace('http', 'ws'));
  });

  afterEach(async () => {
    (await testService()).clock.reset();
    await leaveRooms(rooms);
  });

  /** A player's room (a spectator's without `user`), its first state decoded. */
  const join = async (user?: TestUser) => {
    const room = await sdk.joinById(game.id, user ? { token: user.accessToken } : {});
    rooms.push(room);
    await new Promise<void>((resolve) => ((room.state as any)?.fen ? resolve() : room.onStateChange.once(() => resolve())));
    return room;
  };
  const leave = async (room: Room) => {
    rooms.splice(rooms.indexOf(room), 1);
    await room.leave(true);
  };
  const serverState = () => plainState((matchMaker.getLocalRoomById(game.id) as GameRoom).state);
  const skipClaimTime = async () => {
    const { clock, config } = await testService();
    clock.skip(config.claimMs);
  };

  it('says opponent_gone to the other player, refuses an early claim, then finishes the game on time for the claimant', async () => {
    const [w, bl, spectator] = [await join(game.white), await join(game.black), await join()];
    for (const room of [bl, spectator]) room.onMessage('*', () => {});
    const gone = nextMessage(bl, 'opponent_gone');
    const left = Date.now();
    await leave(w);
    const news = await gone;
    assert.equal(news.color, 'white');
    const { config } = await testService();
    const claimableAt = Date.parse(news.claimable_at);
    assert.ok(Math.abs(claimableAt - (left + config.claimMs)) < 2000, `claimable at ${news.claimable_at}`);
    assert.equal((bl.state as any).white.claimableAt, claimableAt, 'the room state says it too');
    await statesSettle([bl, spectator], serverState);

    const early = await claim(game.id, game.black);
    assert.equal(early.status, 409);
    assert.equal(early.body.error.code, 'CLAIM_NOT_ALLOWED');

    await skipClaimTime();
    const res = await claim(game.id, game.black);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.data.status, res.body.data.result, res.body.data.winner, res.body.data.termination], ['finished', '0-1', 'black', 'timeout']);
    assert.notDeepEqual(res.body.data.rating_changes, { white: 0, black: 0 }, 'a rated game is rated');
    const detail = (await getGame(game.id, a)).body.data;
    assert.deepEqual([detail.status, detail.termination, detail.winner], ['finished', 'timeout', 'black']);
    // Every client still here decodes the server's final state: finished, no claim count left.
    await statesSettle([bl, spectator], serverState, (state) => state.status === 'finished' && state.white.claimableAt === 0);
  });

  it('may be claimed as a draw', async () => {
    const w = await join(game.white);
    await join(game.black);
    await leave(w);
    await skipClaimTime();
    const res = await claim(game.id, game.black, 'draw');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.data.result, res.body.data.winner, res.body.data.termination], ['1/2-1/2', null, 'timeout']);
  });

  it('is also the room message claim, answered claim:ok', async () => {
    const w = await join(game.white);
    const bl = await join(game.black);
    const gone = nextMessage(bl, 'opponent_gone');
    await leave(w);
    await gone;
    assert.equal((await expectError(bl, 'claim', { result: 'win' })).code, 'CLAIM_NOT_ALLOWED');
    await skipClaimTime();
    const ok = await expectOk(bl, 'claim', { result: 'win' });
    assert.deepEqual([ok.status, ok.winner, ok.termination], ['finished', 'black', 'timeout']);
  });

  it('refuses a claim against a player who never joined the room (a REST client)', async () => {
    await join(game.black);
    await skipClaimTime();
    const res = await claim(game.id, game.black);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'CLAIM_NOT_ALLOWED');
    assert.equal((await getGame(game.id, a)).body.data.status, 'active');
  });

  it('stops the count when the player comes back: opponent_back, and no claim', async () => {
    const w = await join(game.white);
    const bl = await join(game.black);
    const gone = nextMessage(bl, 'opponent_gone');
    await leave(w);
    await gone;
    const back = nextMessage(bl, 'opponent_back');
    await join(game.white);
    assert.equal((await back).color, 'white');
    assert.equal((bl.state as any).white.claimableAt, 0);
    await skipClaimTime();
    const res = await claim(game.id, game.black);
    assert.equal(res.status, 409);
    assert.equal(res.body.error.code, 'CLAIM_NOT_ALLOWED');
  });

  it('says opponent_gone and opponent_back on the game stream', async () => {
    const stream = await WsClient.open(`/v1/games/${game.id}/stream`);
    const state = await stream.next('state');
    const w = await join(game.white);
    await leave(w);
    const gone = await stream.until('opponent_gone');
    assert.equal(gone.color, 'white');
    assert.equal(gone.v, state.v, 'as of the game event it follows, not numbered');
    assert.equal(typeof gone.claimable_at, 'string');
    await join(game.white);
    assert.equal((await stream.until('opponent_back')).color, 'white');
    stream.close();
  });

  it('answers a claim body that is not win or draw with 400, and a stranger with 403', async () => {
    const bad = await api('POST', `/v1/games/${game.id}/claim`, as(b, { result: 'loss' }));
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
    const stranger = await createUser();
    const other = await claim(game.id, stranger);
    assert.deepEqual([other.status, other.body.error.code], [403, 'NOT_A_PLAYER']);
  });
});
