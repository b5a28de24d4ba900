import assert from 'node:assert/strict';
import { matchMaker } from '@colyseus/core';
import { Client, type Room } from '@colyseus/sdk';
import type { GameRoom } from '../../rooms/GameRoom.ts';
import { createActiveGame, getGame, type ActiveGame } from '../helpers/games.ts';
import { captureSchemaWarnings, command, expectError, expectOk, leaveRooms, nextMessage, plainState, statesSettle } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

/**
 * Takebacks in the game room with real SDK clients (DESIGN 2.11): players and a spectator decode
 * the state the server holds after each step, and that state is the game's as the actor and
 * REST show it.
 */
describe('GameRoom takebacks with real SDK clients', () => {
  let sdk: Client;
  let game: ActiveGame;
  let capture: ReturnType<typeof captureSchemaWarnings>;
  const opened: Room[] = [];

  beforeEach(async () => {
    const { service } = await testService();
    sdk = new Client(service.url.replace('http', 'ws'));
    const [white, black]: TestUser[] = await Promise.all([createUser(), createUser()]);
    game = await createActiveGame(white, black);
    capture = captureSchemaWarnings();
  });

  afterEach(async () => {
    capture.restore();
    await leaveRooms(opened);
  });

  const serverRoom = () => matchMaker.getLocalRoomById(game.id) as GameRoom;
  const serverState = () => plainState(serverRoom().state) as any;

  const join = async (user?: TestUser) => {
    const room = await sdk.joinById(game.id, user ? { token: user.accessToken } : {});
    opened.push(room);
    for (const type of ['game_end', 'takeback_offer', 'takeback'] as const) room.onMessage(type, () => {});
    return room;
  };

  /** White, Black and a spectator in step, after `ucis`. */
  const table = async (ucis: string[]) => {
    const w = await join(game.white);
    const b = await join(game.black);
    const s = await join();
    for (const [i, uci] of ucis.entries()) await play(i % 2 === 0 ? w : b, uci);
    const all = [w, b, s];
    await inStep(all);
    return { w, b, s, all };
  };

  const play = async (room: Room, uci: string) => {
    const answer = await command(room, 'move', { from: uci.slice(0, 2), to: uci.slice(2, 4) });
    assert.equal(answer.type, 'move:ok', JSON.stringify(answer.body));
  };

  /** Every client's decoded state is the server's, and the server's is the live game's. */
  const inStep = async (rooms: Room[]) => {
    await statesSettle(rooms, serverState);
    assert.deepEqual(capture.warnings, [], 'the schema decoder warned');
    const s = serverState();
    const live = serverRoom().live;
    assert.deepEqual([s.moves, s.fen, s.turn, s.eventSeq], [[...live.game.sanList], live.game.fen, live.game.turn, live.eventSeq]);
  };

  it('offers and accepts a takeback: every client sees the offer, the takeback and the board after it', async () => {
    const { w, b, all } = await table(['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4']);
    const offers = Promise.all(all.map((r) => nextMessage(r, 'takeback_offer')));
    const offered = await expectOk(w, 'takeback'); // Black's turn: White's last move
    assert.deepEqual([offered.takeback.plies, offered.takeback.status], [1, 'pending']);
    for (const m of await offers) assert.deepEqual(m, { takeback: offered.takeback, v: 6 });
    await inStep(all);
    const pending = serverState().takebackOffer;
    assert.deepEqual([pending.id, pending.offeredBy, pending.plies, pending.expiresAt], [offered.takeback.id, game.white.id, 1, Date.parse(offered.takeback.expires_at)]);

    const takebacks = Promise.all(all.map((r) => nextMessage(r, 'takeback')));
    const accepted = await expectOk(b, 'answer_takeback', { takeback_id: offered.takeback.id, accept: true });
    assert.equal(accepted.takeback.status, 'accepted');
    const heard = await takebacks;
    for (const m of heard) {
      assert.deepEqual(m, {
        takeback_id: offered.takeback.id, plies: 1, fen: accepted.game!.fen, move_count: 4, current_turn: 'white', times: m.times, v: 7,
      });
    }
    await inStep(all);
    const s = serverState();
    assert.deepEqual([s.moves, s.turn, s.lastMove.san, s.takebackOffer.id, s.clockRunning], [['e4', 'e5', 'Nf3', 'Nc6'], 'white', 'Nc6', '', true]);
    const detail = (await getGame(game.id, game.white)).body.data;
    assert.deepEqual([detail.fen, detail.move_count, detail.pgn], [s.fen, 4, '1. e4 e5 2. Nf3 Nc6']);

    // Play goes on, in step.
    await play(w, 'f1b5');
    await inStep(all);
    assert.deepEqual(serverState().moves, ['e4', 'e5', 'Nf3', 'Nc6', 'Bb5']);
  });

  it('declines a takeback: the offer goes, the board stays; a resent answer (same id) is answered again', async () => {
    const { w, b, all } = await table(['e2e4', 'e7e5', 'g1f3']);
    const offered = await expectOk(w, 'takeback');
    await inStep(all);
    const before = serverState();
    const id = 'answer-1';
    const declined = new Promise<any>((resolve) => b.onMessage('answer_takeback:ok', (m: any) => m.id === id && resolve(m)));
    b.send('answer_takeback', { takeback_id: offered.takeback.id, accept: false, id });
    const first = await declined;
    assert.deepEqual([first.takeback.status, first.game], ['declined', undefined]);
    await inStep(all);
    assert.deepEqual({ ...serverState(), eventSeq: before.eventSeq, takebackOffer: before.takebackOffer }, before);
    assert.equal(serverState().takebackOffer.id, '');
    const resent = new Promise<any>((resolve) => b.onMessage('answer_takeback:ok', (m: any) => m.id === id && resolve(m)));
    b.send('answer_takeback', { takeback_id: offered.takeback.id, accept: false, id });
    assert.deepEqual(await resent, first);
  });

  it('refuses what the rules refuse, over the socket, with the REST codes', async () => {
    const { w, b, s } = await table(['e2e4', 'e7e5', 'g1f3']);
    assert.equal((await expectError(b, 'takeback')).code, 'TAKEBACK_NOT_ALLOWED'); // would undo Black's first move
    const offered = await expectOk(w, 'takeback');
    assert.equal((await expectError(w, 'takeback')).code, 'TAKEBACK_PENDING');
    assert.equal((await expectError(w, 'answer_takeback', { takeback_id: offered.takeback.id, accept: true })).code, 'FORBIDDEN');
    assert.equal((await expectError(b, 'answer_takeback', { takeback_id: offered.takeback.id })).code, 'VALIDATION_ERROR');
    assert.equal((await expectError(s, 'takeback')).code, 'NOT_A_PLAYER');
  });

  it('lapses the offer when anyone moves, in step', async () => {
    const { w, b, all } = await table(['e2e4', 'e7e5', 'g1f3']);
    const offered = await expectOk(w, 'takeback');
    await inStep(all);
    const lapsed = nextMessage(w, 'takeback_offer');
    await play(b, 'b8c6');
    assert.deepEqual((await lapsed).takeback, { ...offered.takeback, status: 'expired' });
    await inStep(all);
    assert.deepEqual([serverState().takebackOffer.id, serverState().moves.length], ['', 4]);
    assert.equal((await expectError(b, 'answer_takeback', { takeback_id: offered.takeback.id, accept: true })).code, 'TAKEBACK_NOT_PENDING');
  });

  it('lapses the offer after DRAW_OFFER_TTL_SECONDS (2 s in tests), in step', async () => {
    const { w, all } = await table(['e2e4', 'e7e5', 'g1f3']);
    const lapsed = new Promise<any>((resolve) => all[2]!.onMessage('takeback_offer', (m: any) => m.takeback.status !== 'pending' && resolve(m)));
    const offered = await expectOk(w, 'takeback');
    assert.deepEqual((await lapsed).takeback, { ...offered.takeback, status: 'expired' });
    await inStep(all);
    assert.equal(serverState().takebackOffer.id, '');
  });
});
