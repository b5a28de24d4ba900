import assert from 'node:assert/strict';
import { matchMaker } from '@colyseus/core';
import { Client, type Room } from '@colyseus/sdk';
import type { GameRoom } from '../../rooms/GameRoom.ts';
import { openGame } from '../../src/gateway/index.ts';
import { insertActiveGame } from '../support/fixtures.ts';
import { createActiveGame, type ActiveGame, type ChallengeOptions } from '../helpers/games.ts';
import { captureSchemaWarnings, command, expectOk, leaveRooms, type Message, nextMessage, plainState, statesSettle } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

/**
 * Players and spectators decode the same state the server holds, after every event: also when
 * two events leave in one tick (a mating move and the game's end; a lapsed draw offer and the
 * move that lapsed it), and whatever the seats' tabs do.
 */
describe('GameRoom state sync with real SDK clients', () => {
  let sdk: Client;
  let players: [TestUser, TestUser];
  let game: ActiveGame;
  let capture: ReturnType<typeof captureSchemaWarnings>;
  const opened: Room[] = [];

  beforeEach(async () => {
    const { service } = await testService();
    sdk = new Client(service.url.replace('http', 'ws'));
    players = await Promise.all([createUser(), createUser()]);
    capture = captureSchemaWarnings();
  });

  afterEach(async () => {
    capture.restore();
    await leaveRooms(opened);
  });

  /** A game started the way players start one (challenge, accept): the first-move deadline runs. */
  const start = async (o: ChallengeOptions = {}) => {
    game = await createActiveGame(players[0], players[1], o);
  };

  /** A game without a first-move deadline, for tests that take their time before the first move. */
  const startUntimed = async () => {
    const { service } = await testService();
    const [white, black] = players;
    const id = await insertActiveGame(service.ctx.pool, white.id, black.id, { firstMoveDeadline: null });
    assert.equal(await openGame(id), true);
    game = { id, white, black, detail: undefined };
  };

  const serverRoom = () => {
    const room = matchMaker.getLocalRoomById(game.id) as GameRoom | undefined;
    assert.ok(room, 'the game room runs in this process');
    return room;
  };
  const serverState = () => plainState(serverRoom().state) as any;

  /** One more tab: a player's (with their token) or a spectator's (none). */
  const join = async (user?: TestUser) => {
    const room = await sdk.joinById(game.id, user ? { token: user.accessToken } : {});
    opened.push(room);
    // The rooms under test answer every game_end; an unhandled message type would only log.
    room.onMessage('game_end', () => {});
    return room;
  };

  /** White, Black and a spectator, each with its own socket. */
  const table = async () => {
    const w = await join(game.white);
    const b = await join(game.black);
    const s = await join();
    await inStep([w, b, s]);
    return { w, b, s, all: [w, b, s] };
  };

  /** Every room's decoded state equals the server's (and `until` holds), and no patch was corrupt. */
  const inStep = async (rooms: Room[], until?: (s: any) => boolean) => {
    await statesSettle(rooms, serverState, until);
    assert.deepEqual(capture.warnings, [], 'the schema decoder warned');
  };

  const play = async (room: Room, uci: string) => {
    const answer = await command(room, 'move', { from: uci.slice(0, 2), to: uci.slice(2, 4) });
    assert.equal(answer.type, 'move:ok', JSON.stringify(answer.body));
  };

  const ended = (rooms: Room[], timeoutMs?: number) => Promise.all(rooms.map((r) => nextMessage(r, 'game_end', timeoutMs)));

  it("keeps every client in step through fool's mate, the mating move and the game's end included", async () => {
    await start();
    const { w, b, all } = await table();
    for (const [room, uci] of [[w, 'f2f3'], [b, 'e7e5'], [w, 'g2g4']] as const) {
      await play(room, uci);
      await inStep(all);
    }
    const end = ended(all);
    await play(b, 'd8h4');
    await end;
    await inStep(all);
    const s = serverState();
    assert.deepEqual(s.moves, ['f3', 'e5', 'g4', 'Qh4#']);
    assert.deepEqual([s.status, s.result, s.winner, s.termination], ['finished', '0-1', 'black', 'checkmate']);
    assert.equal(s.fen, 'rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3');
  });

  it('keeps every client in step when a move lapses a pending draw offer', async () => {
    await start();
    const { w, b, all } = await table();
    await play(w, 'e2e4');
    await inStep(all);
    assert.equal((await command(w, 'offer_draw')).type, 'offer_draw:ok');
    await inStep(all);
    assert.notEqual(serverState().drawOffer.id, '');
    await play(b, 'e7e5'); // Black moves instead of answering: the offer lapses in the same tick
    await inStep(all);
    const s = serverState();
    assert.deepEqual([s.drawOffer.id, s.moves, s.turn], ['', ['e4', 'e5'], 'white']);
  });

  it('keeps every client in step through a resignation', async () => {
    await start();
    const { w, b, all } = await table();
    await play(w, 'e2e4');
    await inStep(all);
    const end = ended(all);
    assert.equal((await command(b, 'resign')).type, 'resign:ok');
    await end;
    await inStep(all);
    assert.deepEqual([serverState().termination, serverState().winner], ['resignation', 'white']);
  });

  it('keeps every client in step through an accepted draw', async () => {
    await start();
    const { w, b, all } = await table();
    await play(w, 'e2e4');
    await inStep(all);
    const offer = await expectOk(w, 'offer_draw');
    await inStep(all);
    const end = ended(all);
    const accepted = await command(b, 'answer_draw', { offer_id: offer.draw_offer.id, accept: true });
    assert.equal(accepted.type, 'answer_draw:ok', JSON.stringify(accepted.body));
    await end;
    await inStep(all);
    assert.deepEqual([serverState().result, serverState().termination, serverState().drawOffer.id], ['1/2-1/2', 'agreement', '']);
  });

  it('keeps every client in step when a flag falls', async () => {
    await start({ time_control: 'bullet', initial_time: 1, increment: 0 }); // 1+0: White flags ~1 s after Black's first move
    const { w, b, all } = await table();
    await play(w, 'e2e4');
    await inStep(all);
    const end = ended(all);
    await play(b, 'e7e5');
    await inStep(all);
    const ends = await end;
    assert.ok(ends.every((e: Message) => e.termination === 'timeout'), JSON.stringify(ends));
    await inStep(all);
    const s = serverState();
    assert.deepEqual([s.status, s.winner, s.termination, s.white.remainingMs, s.clockRunning], ['finished', 'black', 'timeout', 0, false]);
  });

  it('keeps every client in step when a game without a first move is aborted', async () => {
    await start(); // FIRST_MOVE_SECONDS is 3 in tests
    const { all } = await table();
    const ends = await ended(all, 8000);
    assert.ok(ends.every((e: Message) => e.abort_reason === 'no_first_move'), JSON.stringify(ends));
    await inStep(all);
    assert.deepEqual([serverState().status, serverState().termination], ['abandoned', 'aborted']);
  });

  it('gives a client joining one game its own state after another game encoded into the shared buffers', async () => {
    await startUntimed();
    const first = game;
    const { w } = await table();
    await play(w, 'e2e4');
    const seen = await join(); // the first game's join state is encoded and kept for the next join
    await inStep([seen]);
    // A second game's joins and move encode into the buffers every game room shares.
    await startUntimed();
    const other = await table();
    await play(other.w, 'd2d4');
    await inStep(other.all);
    game = first;
    const late = await join();
    await inStep([seen, late]);
    assert.equal((late.state as any).gameId, first.id);
  });

  it('keeps a seat connected while any of its tabs is in the room, and not after the last one leaves', async () => {
    await startUntimed();
    const { w, b, s } = await table();
    const w2 = await join(game.white);
    await inStep([w, w2, b, s], (st) => st.white.connected && st.black.connected);
    await w.leave(); // resolves when the server closes the socket, after the room's onLeave
    await inStep([w2, b, s]);
    assert.equal(serverState().white.connected, true, 'the second tab is still in the room');
    await w2.leave();
    await inStep([b, s], (st) => !st.white.connected);
    assert.equal(serverState().black.connected, true);
  });

  it('counts a dropped tab waiting to reconnect as gone and a reconnected one as back', async () => {
    await startUntimed();
    const { w, b, s } = await table();
    const w2 = await join(game.white);
    await inStep([w, w2, b, s]);
    // The network drops a tab (close code 1006, no leave): its seat waits for a reconnection.
    // Resolves once the server has seen its socket close (and the room has handled the drop).
    const drop = (room: Room) => {
      const seen = new Promise((resolve) => serverRoom().clients.get(room.sessionId)!.ref.once('close', resolve));
      room.reconnection.enabled = false;
      (room.connection as any).transport.ws.terminate();
      return seen;
    };
    await drop(w);
    await inStep([w2, b, s]);
    assert.equal(serverState().white.connected, true, 'the other tab is still in the room');
    await drop(w2);
    await inStep([b, s], (st) => !st.white.connected);
    const back = await sdk.reconnect(w2.reconnectionToken);
    opened.push(back);
    await inStep([back, b, s], (st) => st.white.connected);
    await play(back, 'e2e4');
    await inStep([back, b, s]);
  });
});
