import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { matchMaker } from '@colyseus/core';
import type { GameRoom } from '../../rooms/GameRoom.ts';
import { api } from '../helpers/http.ts';
import { as, challenge, createActiveGame, getGame, play, playLine } from '../helpers/games.ts';
import { expireLease } from '../support/fixtures.ts';
import { testService } from '../helpers/service.ts';
import { createUser } from '../helpers/users.ts';
import type { StreamMessage } from '../../src/realtime/messages.ts';
import { WsClient, type WsMessage } from '../helpers/ws.ts';

const stream = (id: string, query = '', headers: Record<string, string> = {}) => WsClient.open<StreamMessage>(`/v1/games/${id}/stream${query}`, headers);

/** The fields every stream message carries (DESIGN 2.6). */
function numbered(m: WsMessage, type: string, v: number): void {
  assert.equal(m.type, type, JSON.stringify(m));
  assert.equal(m.v, v, `${type}: ${JSON.stringify(m)}`);
  assert.ok(Number.isInteger(m.ts) && Math.abs(Date.now() - m.ts) < 60_000, `${type} ts: ${m.ts}`);
}

describe('GET {ws}/v1/games/{id}/stream', () => {
  it('shows a whole game in order, with the exact payloads: state, move + time_update per move, game_end, then 1000', async () => {
    const [w, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(w, b, { initial_time: 300, increment: 2 });
    const s = await stream(game.id); // a spectator: no token
    const state = await s.next('state');
    numbered(state, 'state', 0);
    const detail = (await getGame(game.id, w)).body.data;
    assert.deepEqual(state.game, detail, 'the state is the game detail of GET /games/{id}');

    // Fool's mate, each move as REST answers it and as the stream shows it.
    const line: Array<[typeof w, string, string]> = [[w, 'f2', 'f3'], [b, 'e7', 'e5'], [w, 'g2', 'g4'], [b, 'd8', 'h4']];
    for (const [i, [mover, from, to]] of line.entries()) {
      const answer = await play(game, mover, from, to);
      const v = i + 1;
      const move = await s.next('move');
      numbered(move, 'move', v);
      assert.deepEqual(move.move, {
        ...answer.move,
        ply: v,
        fen: answer.game.fen,
        move_count: answer.game.move_count,
        current_turn: answer.game.current_turn,
      });
      assert.deepEqual(move.times, { white: answer.game.white_time_remaining, black: answer.game.black_time_remaining });
      const times = await s.next('time_update');
      numbered(times, 'time_update', v);
      assert.deepEqual(times.times, move.times, 'the clocks after the move');
    }
    const end = await s.next('game_end');
    numbered(end, 'game_end', 5);
    assert.deepEqual(end.result, { result: '0-1', winner: 'black', termination: 'checkmate', rating_changes: end.result.rating_changes });
    assert.ok(end.result.rating_changes.black > 0);
    assert.equal(end.status, 'finished');
    assert.deepEqual(await s.closed, { code: 1000, reason: 'game over' });
    assert.deepEqual(s.pending, [], 'nothing after game_end');
  });

  it('answers a finished game with state, then game_end, then closes 1000', async () => {
    const [w, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(w, b);
    await api('POST', `/v1/games/${game.id}/resign`, as(w));
    const s = await stream(game.id);
    const state = await s.next('state');
    assert.equal(state.game.status, 'finished');
    const end = await s.next('game_end');
    assert.deepEqual(end.result, { result: '0-1', winner: 'black', termination: 'resignation', rating_changes: state.game.rating_changes });
    assert.equal(end.v, state.v);
    assert.equal((await s.closed).code, 1000);
  });

  it('answers an unknown game, a malformed id and a pending game of others with error GAME_NOT_FOUND, then 4404', async () => {
    const [a, b, stranger] = await Promise.all([createUser(), createUser(), createUser()]);
    const pending = await challenge(a, b);
    for (const [id, headers] of [
      [randomUUID(), {}],
      ['not-a-uuid', {}],
      [pending, {}],
      [pending, { authorization: `Bearer ${stranger.accessToken}` }],
    ] as const) {
      const s = await stream(id, '', headers);
      const error = await s.next('error');
      assert.equal(error.code, 'GAME_NOT_FOUND', id);
      assert.equal((await s.closed).code, 4404);
    }
  });

  it('refuses an invalid token with error UNAUTHORIZED, then 4401, in the query or the header', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(a, b);
    for (const s of [await stream(game.id, '?token=nope'), await stream(game.id, '', { authorization: 'Bearer nope' })]) {
      assert.equal((await s.next('error')).code, 'UNAUTHORIZED');
      assert.equal((await s.closed).code, 4401);
    }
  });

  it('shows a pending game to its players (token), then a fresh state once it is accepted', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const id = await challenge(a, b);
    const s = await stream(id, `?token=${a.accessToken}`);
    const pending = await s.next('state');
    assert.equal(pending.game.status, 'pending');
    assert.equal((await api('POST', `/v1/games/${id}/accept`, as(b))).status, 200);
    const active = await s.next('state');
    assert.equal(active.game.status, 'active');
    await play(id, a, 'e2', 'e4');
    numbered(await s.next('move'), 'move', 1);
    s.close();
  });

  it('ends a pending game that is declined with its state and game_end (abandoned)', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const id = await challenge(a, b);
    const s = await stream(id, '', { authorization: `Bearer ${a.accessToken}` });
    assert.equal((await s.next('state')).game.status, 'pending');
    assert.equal((await api('POST', `/v1/games/${id}/decline`, as(b))).status, 200);
    assert.equal((await s.next('state')).game.status, 'abandoned');
    const end = await s.next('game_end');
    assert.equal(end.status, 'abandoned');
    assert.equal(end.abort_reason, 'declined');
    assert.equal((await s.closed).code, 1000);
  });

  it('is served under /api and /api/v1 too', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(a, b);
    for (const prefix of ['/api', '/api/v1']) {
      const s = await WsClient.open<StreamMessage>(`${prefix}/games/${game.id}/stream`);
      assert.equal((await s.next('state')).game.id, game.id);
      s.close();
    }
  });

  describe('resuming', () => {
    it('replays what was missed after ?since=v, without a new state', async () => {
      const [w, b] = await Promise.all([createUser(), createUser()]);
      const game = await createActiveGame(w, b);
      const first = await stream(game.id);
      await first.next('state');
      await playLine(game, ['e2e4', 'e7e5']);
      await first.until('time_update');
      const lastSeen = (await first.until('time_update')).v;
      first.close();
      await playLine(game, ['g1f3', 'b8c6', 'f1c4'], 2);
      const again = await stream(game.id, `?since=${lastSeen}`);
      const replayed = [];
      for (let i = 0; i < 6; i++) replayed.push(await again.next());
      assert.deepEqual(replayed.map((m) => `${m.type}:${'v' in m ? m.v : '-'}`), ['move:3', 'time_update:3', 'move:4', 'time_update:4', 'move:5', 'time_update:5']);
      assert.deepEqual(replayed.filter((m) => m.type === 'move').map((m) => m.move.san), ['Nf3', 'Nc6', 'Bc4']);
      await play(game, b, 'g8', 'f6');
      numbered(await again.next('move'), 'move', 6);
      again.close();
    });

    it('sends a fresh state when the buffer no longer reaches back to ?since', async () => {
      const { service } = await testService();
      const [w, b] = await Promise.all([createUser(), createUser()]);
      const game = await createActiveGame(w, b);
      // Events numbered 1..40 happened long ago: nothing of them is in the buffer. The room
      // hosting the game is told as well: the state of a game hosted here is read from it.
      await service.ctx.pool.query('UPDATE games SET event_seq = 40 WHERE id = $1', [game.id]);
      (matchMaker.getLocalRoomById(game.id) as GameRoom).live.state.eventSeq = 40;
      const s = await stream(game.id, '?since=3');
      const state = await s.next('state');
      assert.equal(state.v, 40);
      s.close();
    });

    it('refuses a ?since that is not an event number', async () => {
      const [w, b] = await Promise.all([createUser(), createUser()]);
      const game = await createActiveGame(w, b);
      const s = await stream(game.id, '?since=-1');
      assert.equal((await s.next('error')).code, 'VALIDATION_ERROR');
      assert.equal((await s.closed).code, 1008);
    });
  });

  it('keeps v numbering across a room rehydrated after its node died', async () => {
    const { service } = await testService();
    const [w, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(w, b);
    const s = await stream(game.id);
    await s.next('state');
    await playLine(game, ['d2d4', 'd7d5']);
    // The room's node dies: its room goes without releasing the game, and the lease lapses.
    const room = matchMaker.getLocalRoomById(game.id) as GameRoom;
    room.live.markLost();
    await room.disconnect().catch(() => {});
    await expireLease(service.ctx.pool, game.id);
    await playLine(game, ['c2c4', 'e7e6'], 2); // the gateway rehydrates the game on the next move
    const moves = [];
    while (moves.length < 4) {
      const m = await s.next();
      if (m.type === 'move') moves.push(m);
    }
    assert.deepEqual(moves.map((m) => [m.v, m.move.san]), [[1, 'd4'], [2, 'd5'], [3, 'c4'], [4, 'e6']]);
    s.close();
  });

  it('answers ping with pong, anything else with VALIDATION_ERROR, and survives 1,000 junk frames', async () => {
    const [w, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(w, b);
    const watcher = await stream(game.id);
    await watcher.next('state');
    await playLine(game, ['e2e4', 'e7e5']); // the first-move deadlines are shorter than the junk takes
    await watcher.until('time_update');
    await watcher.until('time_update');
    const s = await stream(game.id);
    await s.next('state');
    s.send({ type: 'ping', id: 7 });
    const pong = await s.next('pong');
    assert.equal(pong.id, 7);
    s.send('{"type": "subscribe"');
    assert.equal((await s.next('error')).code, 'VALIDATION_ERROR');
    // 1,000 junk frames over 8 sockets: each is closed after 100 refused ones (1008).
    for (let socket = 0; socket < 8; socket++) {
      const junk = await stream(game.id);
      await junk.next('state');
      for (let i = 0; i < 125; i++) junk.send(i % 3 ? Buffer.from([i & 255, 0xff]) : `{"type":${i}}`);
      assert.deepEqual(await junk.closed, { code: 1008, reason: 'too many refused messages' });
    }
    assert.equal((await api('GET', '/healthz')).status, 200, 'the service is alive');
    await play(game, w, 'g1', 'f3');
    numbered(await watcher.until('move'), 'move', 3);
    watcher.close();
  });

  it('closes a socket that sends a frame over 4 KB (1009)', async () => {
    const [w, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(w, b);
    const s = await stream(game.id);
    await s.next('state');
    s.send('x'.repeat(5000));
    assert.equal((await s.closed).code, 1009);
  });

  it('refuses messages over the per-socket budget with RATE_LIMIT_EXCEEDED', async () => {
    const [w, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(w, b);
    const s = await stream(game.id);
    await s.next('state');
    for (let i = 0; i < 70; i++) s.send({ type: 'ping' });
    const answers = [];
    for (let i = 0; i < 70; i++) answers.push(await s.next());
    assert.equal(answers.filter((m) => m.type === 'pong').length, 60, 'a burst of 60');
    assert.ok(answers.slice(60).every((m) => m.type === 'error' && m.code === 'RATE_LIMIT_EXCEEDED'));
    s.close();
  });
});
