import assert from 'node:assert/strict';
import { sleep } from '../../src/time.ts';
import { as, createActiveGame, play, sendMove, type ActiveGame } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { holdGameRow, type HeldRow } from '../helpers/rowLock.ts';
import { testService } from '../helpers/service.ts';
import { createUser } from '../helpers/users.ts';

const STALL_MS = 2000;

/**
 * DESIGN 2.4: a move is timed when its request is read, not when the game's actor gets to it.
 * The running service on the real clock; the move waits behind the player's own draw offer,
 * whose write waits for a games row another transaction holds.
 */
describe('REST moves are timed when the request is read', () => {
  let game: ActiveGame;
  let row: HeldRow | undefined;

  beforeEach(async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    game = await createActiveGame(a, b, { time_control: 'blitz', initial_time: 300, increment: 0 }); // a is White
  });
  afterEach(() => row?.release());

  it(`charges a move that waited ${STALL_MS} ms behind a stalled write its think time only`, async () => {
    const { service } = await testService();
    const { clock, pool } = service.ctx;
    await play(game, game.white, 'e2', 'e4');
    // White's clock starts when Black's move is made: somewhere between this request and its answer.
    const blackSent = clock.now();
    await play(game, game.black, 'e7', 'e5');
    const blackAnswered = clock.now();

    row = await holdGameRow(pool, game.id);
    const offer = api('POST', `/v1/games/${game.id}/draw`, as(game.white));
    await row.blocking(/draw_offers/);
    const sent = clock.now();
    const move = sendMove(game, game.white, 'g1', 'f3');
    await sleep(STALL_MS, clock);
    await row.release();

    assert.equal((await offer).status, 200);
    const res = await move;
    const answered = clock.now();
    assert.equal(res.status, 200, res.text);
    assert.ok(answered - sent >= STALL_MS, `the move was answered after ${answered - sent} ms: it did not wait`);
    const charged = 300_000 - Math.round(res.body.data.game.white_time_remaining * 1000);
    const think = { min: sent - blackAnswered, max: sent - blackSent };
    assert.ok(charged >= think.min && charged <= think.max + 50, `charged ${charged} ms for a think time of ${think.min}..${think.max} ms`);
  });
});
