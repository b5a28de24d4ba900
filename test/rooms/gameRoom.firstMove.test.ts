import assert from 'node:assert/strict';
import { matchMaker } from '@colyseus/core';
import { Client, type Room } from '@colyseus/sdk';
import type { GameRoom } from '../../rooms/GameRoom.ts';
import { createActiveGame, type ActiveGame } from '../helpers/games.ts';
import { command, leaveRooms, plainState, statesSettle } from '../helpers/rooms.ts';
import { TEST_ENV, testService } from '../helpers/service.ts';
import { createUser } from '../helpers/users.ts';

/**
 * The room state's `firstMoveDeadline` (what the web app's first-move countdown shows): by when
 * the side to move must make its first move, FIRST_MOVE_SECONDS (3 s in tests) after the start,
 * then after White's first move; 0 once both have moved, and in correspondence.
 */
describe('GameRoom: the first move\'s deadline in the state', () => {
  let sdk: Client;
  const opened: Room[] = [];
  const firstMoveMs = Number(TEST_ENV.FIRST_MOVE_SECONDS) * 1000;

  beforeEach(async () => {
    const { service } = await testService();
    sdk = new Client(service.url.replace('http', 'ws'));
  });

  afterEach(() => leaveRooms(opened));

  const state = (game: ActiveGame) => plainState((matchMaker.getLocalRoomById(game.id) as GameRoom).state) as any;
  const join = async (game: ActiveGame, color: 'white' | 'black') => {
    const room = await sdk.joinById(game.id, { token: game[color].accessToken });
    opened.push(room);
    room.onMessage('game_end', () => {});
    return room;
  };
  const move = async (room: Room, from: string, to: string) => assert.equal((await command(room, 'move', { from, to })).type, 'move:ok');

  it('runs from the start for White, from White\'s move for Black, and is 0 once both have moved', async () => {
    const before = Date.now();
    const game = await createActiveGame(await createUser(), await createUser());
    const [w, b] = [await join(game, 'white'), await join(game, 'black')];
    await statesSettle([w, b], () => state(game));
    const white = state(game).firstMoveDeadline;
    assert.ok(white >= before + firstMoveMs && white <= Date.now() + firstMoveMs, `White's: ${white - before} ms after the test began`);

    const moved = Date.now();
    await move(w, 'e2', 'e4');
    await statesSettle([w, b], () => state(game));
    const black = state(game).firstMoveDeadline;
    assert.ok(black >= moved + firstMoveMs && black <= Date.now() + firstMoveMs, `Black's: ${black - moved} ms after White's move`);

    await move(b, 'e7', 'e5');
    await statesSettle([w, b], () => state(game));
    assert.equal(state(game).firstMoveDeadline, 0);
  });

  it('is 0 in a correspondence game (no first-move abort there)', async () => {
    const game = await createActiveGame(await createUser(), await createUser(), { time_control: 'correspondence', days_per_move: 2 });
    const w = await join(game, 'white');
    await statesSettle([w], () => state(game));
    assert.equal(state(game).firstMoveDeadline, 0);
  });
});
