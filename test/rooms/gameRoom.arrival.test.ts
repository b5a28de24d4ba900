import assert from 'node:assert/strict';
import { Client, type Room } from '@colyseus/sdk';
import { openGame } from '../../src/gateway/index.ts';
import { sleep } from '../../src/time.ts';
import { insertActiveGame } from '../support/fixtures.ts';
import { command, leaveRooms } from '../helpers/rooms.ts';
import { holdGameRow, type HeldRow } from '../helpers/rowLock.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const STALL_MS = 2000;

/**
 * DESIGN 2.4: a move is timed when its socket frame is read, not when the game's actor gets to
 * it. The running service on the real clock; the move waits behind the player's own draw offer,
 * whose write waits for a games row another transaction holds.
 */
describe('GameRoom moves are timed when the frame is read', () => {
  let white: TestUser;
  let black: TestUser;
  let gameId: string;
  let row: HeldRow | undefined;
  const joined: Room[] = [];

  beforeEach(async () => {
    const { service } = await testService();
    [white, black] = await Promise.all([createUser(), createUser()]);
    gameId = await insertActiveGame(service.ctx.pool, white.id, black.id, { initialTime: 300, increment: 0 });
    assert.equal(await openGame(gameId), true);
  });
  afterEach(async () => {
    await row?.release();
    await leaveRooms(joined);
  });

  const join = async (user: TestUser) => {
    const { service } = await testService();
    const room = await new Client(service.url.replace('http', 'ws')).joinById(gameId, { token: user.accessToken });
    joined.push(room);
    return room;
  };

  it(`charges a move that waited ${STALL_MS} ms behind a stalled write its think time only`, async () => {
    const { service } = await testService();
    const { clock, pool } = service.ctx;
    const [w, b] = await Promise.all([join(white), join(black)]);
    assert.equal((await command(w, 'move', { from: 'e2', to: 'e4' })).type, 'move:ok');
    // White's clock starts when Black's move is made: somewhere between this frame and its answer.
    const blackSent = clock.now();
    assert.equal((await command(b, 'move', { from: 'e7', to: 'e5' })).type, 'move:ok');
    const blackAnswered = clock.now();

    row = await holdGameRow(pool, gameId);
    const offer = command(w, 'offer_draw');
    await row.blocking(/draw_offers/);
    const sent = clock.now();
    const move = command(w, 'move', { from: 'g1', to: 'f3' });
    await sleep(STALL_MS, clock);
    await row.release();

    assert.equal((await offer).type, 'offer_draw:ok');
    const answer = await move;
    const answered = clock.now();
    assert.equal(answer.type, 'move:ok', JSON.stringify(answer.body));
    assert.ok(answered - sent >= STALL_MS, `the move was answered after ${answered - sent} ms: it did not wait`);
    const charged = 300_000 - Math.round(answer.body.game.white_time_remaining * 1000);
    const think = { min: sent - blackAnswered, max: sent - blackSent };
    assert.ok(charged >= think.min && charged <= think.max + 50, `charged ${charged} ms for a think time of ${think.min}..${think.max} ms`);
  });
});
