import assert from 'node:assert/strict';
import { api, newIp } from '../helpers/http.ts';
import { challenge, createActiveGame, play } from '../helpers/games.ts';
import { createUser } from '../helpers/users.ts';
import type { ChannelMessage, StreamMessage } from '../../src/realtime/messages.ts';
import { WsClient } from '../helpers/ws.ts';

/** Ids are UUIDs, and a UUID's hex digits may be written in either case (RFC 9562); ours are lower-case. */
const upper = (id: string) => id.toUpperCase();

describe('ids in upper case on the sockets (DESIGN 2.6, 2.8)', () => {
  it('streams a game asked by its upper-cased id: state, then its moves, then game_end and 1000', async () => {
    const [w, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(w, b);
    const s = await WsClient.open<StreamMessage>(`/v1/games/${upper(game.id)}/stream`);
    assert.equal((await s.next('state')).game.id, game.id, 'the state names the game by its own id');
    for (const [mover, from, to] of [[w, 'f2', 'f3'], [b, 'e7', 'e5'], [w, 'g2', 'g4'], [b, 'd8', 'h4']] as const) {
      await play(game, mover, from, to);
      assert.equal((await s.next('move')).move.to, to);
      await s.next('time_update');
    }
    assert.equal((await s.next('game_end')).result.termination, 'checkmate');
    assert.deepEqual(await s.closed, { code: 1000, reason: 'game over' });
  });

  it('answers a malformed stream id GAME_NOT_FOUND and closes 4404', async () => {
    const s = await WsClient.open<StreamMessage>('/v1/games/not-a-uuid/stream');
    assert.equal((await s.next('error')).code, 'GAME_NOT_FOUND');
    assert.equal((await s.closed).code, 4404);
  });

  it('delivers the personal events of user:<own id upper-cased>, under the channel named in lower case', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const r = await WsClient.open<ChannelMessage>('/v1/realtime');
    r.send({ type: 'subscribe', channel: `user:${upper(a.id)}`, token: a.accessToken, id: 1 });
    const subscribed = await r.next('subscribed');
    const gameId = await challenge(b, a);
    const received = await r.next('challenge_received');
    assert.equal(received.game_id, gameId);
    assert.deepEqual([subscribed.channel, subscribed.id, received.channel], [`user:${a.id}`, 1, `user:${a.id}`]);
    r.close();
  });

  it('ends user:<own id upper-cased> when its session logs out', async () => {
    const a = await createUser();
    const r = await WsClient.open<ChannelMessage>('/v1/realtime');
    r.send({ type: 'subscribe', channel: `user:${upper(a.id)}`, token: a.accessToken });
    await r.next('subscribed');
    assert.equal((await api('POST', '/v1/auth/logout', { token: a.accessToken, ip: newIp() })).status, 204);
    const error = await r.next('error');
    assert.deepEqual([error.code, error.channel], ['UNAUTHORIZED', `user:${a.id}`]);
    r.close();
  });

  it('holds one subscription for a channel however its id is written: unsubscribing any spelling ends it', async () => {
    const [w, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(w, b);
    const r = await WsClient.open<ChannelMessage>('/v1/realtime');
    r.send({ type: 'subscribe', channel: `game:${game.id}` });
    await r.next('subscribed');
    await r.next('state');
    r.send({ type: 'subscribe', channel: `game:${upper(game.id)}` });
    assert.equal((await r.next('subscribed')).channel, `game:${game.id}`, 'already subscribed: no second state');
    r.send({ type: 'unsubscribe', channel: `game:${upper(game.id)}` });
    assert.equal((await r.next('unsubscribed')).channel, `game:${game.id}`);
    await play(game, w, 'e2', 'e4');
    r.send({ type: 'ping' });
    assert.equal((await r.next()).type, 'pong', 'the move was not delivered after unsubscribing');
    r.close();
  });
});
