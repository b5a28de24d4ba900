import assert from 'node:assert/strict';
import { Client, type Room } from '@colyseus/sdk';
import { openGame } from '../../src/gateway/index.ts';
import { insertActiveGame } from '../support/fixtures.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { command, expectError, expectOk, leaveRooms, type Message, nextMessage as next } from '../helpers/rooms.ts';




describe('GameRoom over Colyseus', () => {
  let white: TestUser;
  let black: TestUser;
  let sdk: Client;
  let gameId: string;
  const joined: Room[] = [];

  beforeEach(async () => {
    const { service } = await testService();
    [white, black] = await Promise.all([createUser(), createUser()]);
    gameId = await insertActiveGame(service.ctx.pool, white.id, black.id, { initialTime: 180, increment: 2 });
    assert.equal(await openGame(gameId), true);
    sdk = new Client(service.url.replace('http', 'ws'));
  });

  afterEach(async () => {
    await leaveRooms(joined);
  });

  const join = async (token?: string) => {
    const room = await sdk.joinById(gameId, token ? { token } : {});
    joined.push(room);
    await new Promise<void>((resolve) => (room.state?.fen ? resolve() : room.onStateChange.once(() => resolve())));
    return room;
  };

  it('gives a joining player the full state with both seats', async () => {
    const room = await join(white.accessToken);
    const s = room.state as any;
    assert.equal(s.gameId, gameId);
    assert.equal(s.status, 'active');
    assert.equal(s.turn, 'white');
    assert.equal(s.white.id, white.id);
    assert.equal(s.black.username, black.username);
    assert.equal(s.white.remainingMs, 180_000);
  });

  /** The group-commit writer's moves and timed batches, from /metrics. */
  const writerMetrics = async () => {
    const { service } = await testService();
    const text = await (await fetch(`${service.url}/metrics`)).text();
    const value = (name: string) => Number(text.match(new RegExp(`^${name} (\\S+)$`, 'm'))?.[1] ?? NaN);
    return { moves: value('chess_moves_written_total'), timed: value('chess_move_batch_seconds_count') };
  };

  it('acknowledges a move with the REST shape and syncs it to the opponent', async () => {
    const before = await writerMetrics();
    const w = await join(white.accessToken);
    const b = await join(black.accessToken);
    const synced = new Promise<void>((resolve) => b.onStateChange((s: any) => s.moves.length === 1 && resolve()));
    const answer = await command(w, 'move', { from: 'e2', to: 'e4' });
    assert.equal(answer.type, 'move:ok');
    assert.equal(answer.body.move.san, 'e4');
    assert.equal(answer.body.game.current_turn, 'black');
    assert.equal(answer.body.game.move_count, 1);
    await synced;
    assert.equal((b.state as any).lastMove.san, 'e4');
    const after = await writerMetrics();
    assert.ok(after.moves - before.moves >= 1 && after.timed - before.timed >= 1, `writer metrics ${JSON.stringify({ before, after })}`);
  });

  it('answers a move out of turn with NOT_YOUR_TURN and an illegal one with INVALID_MOVE', async () => {
    const w = await join(white.accessToken);
    const b = await join(black.accessToken);
    assert.equal((await expectError(b, 'move', { from: 'e7', to: 'e5' })).code, 'NOT_YOUR_TURN');
    assert.equal((await expectError(w, 'move', { from: 'e2', to: 'e5' })).code, 'INVALID_MOVE');
  });

  it('answers malformed and unknown messages with an error and keeps the socket', async () => {
    const w = await join(white.accessToken);
    assert.equal((await expectError(w, 'move', { from: 'z9', to: 42 })).code, 'VALIDATION_ERROR');
    const unknown = next(w, 'error');
    w.send('teleport', { to: 'h8' });
    assert.equal((await unknown).code, 'VALIDATION_ERROR');
    assert.equal((await command(w, 'move', { from: 'e2', to: 'e4' })).type, 'move:ok');
  });

  it('lets spectators watch without a token but not play', async () => {
    const watcher = await join();
    assert.equal((watcher.state as any).fen.split(' ')[1], 'w');
    assert.equal((await expectError(watcher, 'move', { from: 'e2', to: 'e4' })).code, 'NOT_A_PLAYER');
  });

  it('refuses to join with an invalid token', async () => {
    await assert.rejects(sdk.joinById(gameId, { token: 'not-a-token' }));
  });

  it('ends the game on resignation and tells everyone the result', async () => {
    const w = await join(white.accessToken);
    const b = await join(black.accessToken);
    w.onMessage('game_end', () => {});
    const ended = next(b, 'game_end');
    const answer = await command(w, 'resign');
    assert.equal(answer.type, 'resign:ok');
    assert.deepEqual([answer.body.result, answer.body.winner, answer.body.termination], ['0-1', 'black', 'resignation']);
    const end = await ended;
    assert.equal(end.termination, 'resignation');
    assert.equal(typeof end.rating_changes.white, 'number');
    assert.ok(end.rating_changes.white < 0 && end.rating_changes.black > 0);
  });

  it('runs a draw offer and its acceptance over the socket', async () => {
    const w = await join(white.accessToken);
    const b = await join(black.accessToken);
    for (const r of [w, b]) r.onMessage('game_end', () => {});
    const offer = await expectOk(w, 'offer_draw');
    assert.equal(offer.draw_offer.status, 'pending');
    const accepted = await expectOk(b, 'answer_draw', { offer_id: offer.draw_offer.id, accept: true });
    assert.ok('result' in accepted, JSON.stringify(accepted));
    assert.deepEqual([accepted.result, accepted.termination], ['1/2-1/2', 'agreement']);
  });

  it('limits a socket to 100 messages per 20 s', async () => {
    const w = await join(white.accessToken);
    const errors: Message[] = [];
    w.onMessage('error', (e: Message) => errors.push(e));
    const all = new Promise<void>((resolve) => w.onMessage('error', () => errors.length === 101 && resolve()));
    for (let i = 0; i < 101; i++) w.send('move', { from: 'a1', to: 'a1' });
    await all;
    assert.equal(errors.filter((e) => e.code === 'INVALID_MOVE').length, 100);
    assert.ok(errors.some((e) => e.code === 'RATE_LIMIT_EXCEEDED'), JSON.stringify(errors.slice(-2)));
  });

  it('lets a dropped player reconnect and carry on from the current state', async () => {
    const w = await join(white.accessToken);
    const b = await join(black.accessToken);
    b.reconnection.minUptime = 0;
    b.reconnection.minDelay = 10;
    const back = new Promise<void>((resolve) => b.onReconnect(() => resolve()));
    (b.connection as any).transport.ws.terminate(); // the network drops: close code 1006, no leave
    await command(w, 'move', { from: 'd2', to: 'd4' }); // made while Black is away
    await back;
    await new Promise<void>((resolve) => ((b.state as any).moves.length === 1 ? resolve() : b.onStateChange(() => resolve())));
    assert.deepEqual([...(b.state as any).moves], ['d4']);
    assert.equal((await command(b, 'move', { from: 'd7', to: 'd5' })).type, 'move:ok');
  });
});
