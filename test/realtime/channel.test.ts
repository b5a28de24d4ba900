import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { api, newIp } from '../helpers/http.ts';
import { as, challenge, createActiveGame, play, uniquePool } from '../helpers/games.ts';
import { createUser } from '../helpers/users.ts';
import type { ChannelMessage } from '../../src/realtime/messages.ts';
import { subscribeUser, WsClient } from '../helpers/ws.ts';

const realtime = (path = '/realtime') => WsClient.open<ChannelMessage>(path);

describe('{ws}/realtime (the realtime channel)', () => {
  it('subscribes to a game: subscribed, then the stream messages with channel; unsubscribe stops them', async () => {
    const [w, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(w, b);
    const channel = `game:${game.id}`;
    const r = await realtime();
    r.send({ type: 'subscribe', channel, token: w.accessToken, id: 'sub-1' });
    const subscribed = await r.next('subscribed');
    assert.equal(subscribed.channel, channel);
    assert.equal(subscribed.id, 'sub-1');
    const state = await r.next('state');
    assert.equal(state.channel, channel);
    assert.equal(state.game.id, game.id);
    assert.equal(state.v, 0);
    await play(game, w, 'e2', 'e4');
    const move = await r.next('move');
    assert.deepEqual([move.channel, move.v, move.move.san], [channel, 1, 'e4']);
    assert.equal((await r.next('time_update')).channel, channel);
    r.send({ type: 'unsubscribe', channel });
    assert.equal((await r.next('unsubscribed')).channel, channel);
    await play(game, b, 'e7', 'e5');
    r.send({ type: 'ping' });
    assert.equal((await r.next()).type, 'pong', 'nothing of the game after unsubscribing');
    r.close();
  });

  it('is served at /v1/realtime too, and answers ping with pong', async () => {
    const r = await realtime('/v1/realtime');
    r.send({ type: 'ping', id: 42 });
    const pong = await r.next('pong');
    assert.equal(pong.id, 42);
    assert.equal(typeof pong.ts, 'number');
    r.close();
  });

  it('listens to many channels on one socket', async () => {
    const [w, b, c, d] = await Promise.all([createUser(), createUser(), createUser(), createUser()]);
    const [g1, g2] = await Promise.all([createActiveGame(w, b), createActiveGame(c, d)]);
    const r = await realtime();
    for (const g of [g1, g2]) {
      r.send({ type: 'subscribe', channel: `game:${g.id}` });
      await r.next('subscribed');
      await r.next('state');
    }
    await play(g2, c, 'd2', 'd4');
    await play(g1, w, 'e2', 'e4');
    const moves = [await r.until('move'), await r.until('move')];
    assert.deepEqual(moves.map((m) => [m.channel, m.move.san]), [[`game:${g2.id}`, 'd4'], [`game:${g1.id}`, 'e4']]);
    r.close();
  });

  it('refuses a bad token with error UNAUTHORIZED naming the channel, and unknown games and channels', async () => {
    const [w, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(w, b);
    const r = await realtime();
    r.send({ type: 'subscribe', channel: `game:${game.id}`, token: 'nope' });
    const bad = await r.next('error');
    assert.deepEqual([bad.code, bad.channel], ['UNAUTHORIZED', `game:${game.id}`]);
    r.send({ type: 'subscribe', channel: `game:${randomUUID()}` });
    assert.equal((await r.next('error')).code, 'GAME_NOT_FOUND');
    for (const channel of ['games:x', 'user:me', 'lobby:seeks', '']) {
      r.send({ type: 'subscribe', channel });
      assert.equal((await r.next('error')).code, 'VALIDATION_ERROR', channel);
    }
    r.close();
  });

  it("keeps a pending game to its players, and someone else's user channel to them", async () => {
    const [a, b, stranger] = await Promise.all([createUser(), createUser(), createUser()]);
    const pending = await challenge(a, b);
    const r = await realtime();
    r.send({ type: 'subscribe', channel: `game:${pending}`, token: stranger.accessToken });
    assert.equal((await r.next('error')).code, 'GAME_NOT_FOUND');
    r.send({ type: 'subscribe', channel: `user:${a.id}`, token: stranger.accessToken });
    assert.equal((await r.next('error')).code, 'FORBIDDEN');
    r.send({ type: 'subscribe', channel: `user:${a.id}` });
    assert.equal((await r.next('error')).code, 'UNAUTHORIZED');
    r.close();
  });

  describe('user:<own id>', () => {

    it('tells of a challenge received, declined and cancelled, and of the game that starts', async () => {
      const [a, b] = await Promise.all([createUser(), createUser()]);
      const [ra, rb] = await Promise.all([subscribeUser(a), subscribeUser(b)]);
      const first = await challenge(a, b);
      const received = await rb.next('challenge_received');
      assert.deepEqual(
        { ...received, ts: 0 },
        { channel: `user:${b.id}`, type: 'challenge_received', game_id: first, from: { id: a.id, username: a.username }, ts: 0 },
      );
      await api('POST', `/v1/games/${first}/decline`, as(b));
      const declined = await ra.next('challenge_declined');
      assert.deepEqual([declined.game_id, declined.by], [first, { id: b.id, username: b.username }]);

      const second = await challenge(a, b);
      assert.equal((await rb.next('challenge_received')).game_id, second);
      await api('POST', `/v1/games/${second}/cancel`, as(a));
      const cancelled = await rb.next('challenge_cancelled');
      assert.deepEqual([cancelled.game_id, cancelled.by.id], [second, a.id]);

      const third = await challenge(a, b);
      await rb.next('challenge_received');
      await api('POST', `/v1/games/${third}/accept`, as(b));
      for (const r of [ra, rb]) assert.equal((await r.next('game_started')).game_id, third);
      ra.close();
      rb.close();
    });

    it('tells both seekers of a pairing with the game id', async () => {
      const [a, b] = await Promise.all([createUser(), createUser()]);
      const [ra, rb] = await Promise.all([subscribeUser(a), subscribeUser(b)]);
      const pool = uniquePool();
      const seek = await api('POST', '/v1/games', as(a, { type: 'matchmaking', ...pool }));
      assert.equal(seek.body.data.status, 'pending', seek.text);
      const paired = await api('POST', '/v1/games', as(b, { type: 'matchmaking', ...pool }));
      assert.equal(paired.body.data.status, 'active', paired.text);
      for (const r of [ra, rb]) assert.equal((await r.next('game_started')).game_id, paired.body.data.id);
      ra.close();
      rb.close();
    });

    it('ends the subscription with UNAUTHORIZED when its session logs out, and delivers nothing more', async () => {
      const [a, b] = await Promise.all([createUser(), createUser()]);
      const ra = await subscribeUser(a);
      assert.equal((await api('POST', '/v1/auth/logout', { token: a.accessToken, ip: newIp() })).status, 204);
      const error = await ra.next('error');
      assert.deepEqual([error.code, error.channel], ['UNAUTHORIZED', `user:${a.id}`]);
      await challenge(b, a);
      ra.send({ type: 'ping' });
      assert.equal((await ra.next()).type, 'pong', 'the challenge was not delivered');
      ra.close();
    });

    it('refuses a logged-out token at subscribe time', async () => {
      const a = await createUser();
      await api('POST', '/v1/auth/logout', { token: a.accessToken, ip: newIp() });
      const r = await realtime();
      r.send({ type: 'subscribe', channel: `user:${a.id}`, token: a.accessToken });
      assert.equal((await r.next('error')).code, 'UNAUTHORIZED');
      r.close();
    });
  });

  it('mirrors the lobby: the open seeks, then seek_added and seek_removed', async () => {
    const [a, b] = await Promise.all([createUser(), createUser()]);
    const r = await realtime();
    r.send({ type: 'subscribe', channel: 'lobby' });
    await r.next('subscribed');
    const seeks = await r.next('seeks');
    assert.equal(seeks.channel, 'lobby');
    assert.ok(Array.isArray(seeks.seeks));
    const pool = uniquePool();
    const seek = await api('POST', '/v1/games', as(a, { type: 'matchmaking', ...pool }));
    const added = await r.until('seek_added');
    assert.deepEqual([added.channel, added.seek.id, added.seek.user.id], ['lobby', seek.body.data.id, a.id]);
    await api('POST', '/v1/games', as(b, { type: 'matchmaking', ...pool }));
    let removed = await r.until('seek_removed');
    while (removed.id !== seek.body.data.id) removed = await r.until('seek_removed');
    assert.equal(removed.reason, 'paired');
    r.close();
  });

  it('answers junk with VALIDATION_ERROR and keeps serving the socket', async () => {
    const r = await realtime();
    for (const junk of ['not json', '{"type":"subscribe"}', '{"type":"dance"}', '[]', Buffer.from([1, 2, 3])]) {
      r.send(junk);
      assert.equal((await r.next('error')).code, 'VALIDATION_ERROR', String(junk));
    }
    r.send({ type: 'ping' });
    assert.equal((await r.next()).type, 'pong');
    r.close();
  });

  describe('answers in the order of the subscribes', () => {
    /** The answers (`subscribed`, `error`) to `count` requests, in the order they came, as `type:id`. */
    async function answers(r: WsClient<ChannelMessage>, count: number): Promise<string[]> {
      const seen: string[] = [];
      while (seen.length < count) {
        const m = await r.next();
        if (m.type === 'subscribed' || m.type === 'error') seen.push(`${m.type === 'error' ? m.code : m.type}:${m.id}`);
      }
      return seen;
    }

    it("refuses both of two quick subscribes to another user's channel, the first first", async () => {
      const [me, other] = await Promise.all([createUser(), createUser()]);
      const r = await realtime();
      r.send({ type: 'subscribe', channel: `user:${other.id}`, token: me.accessToken, id: 1 });
      r.send({ type: 'subscribe', channel: `user:${other.id}`, token: me.accessToken, id: 2 });
      assert.deepEqual(await answers(r, 2), ['FORBIDDEN:1', 'FORBIDDEN:2']);
      r.close();
    });

    it('answers a subscribe that checks a token before the public one sent after it', async () => {
      const me = await createUser();
      const r = await realtime();
      r.send({ type: 'subscribe', channel: `user:${me.id}`, token: me.accessToken, id: 1 });
      r.send({ type: 'subscribe', channel: 'lobby', id: 2 });
      r.send({ type: 'subscribe', channel: 'nowhere', id: 3 });
      r.send({ type: 'subscribe', channel: `game:${randomUUID()}`, id: 4 });
      assert.deepEqual(await answers(r, 4), ['subscribed:1', 'subscribed:2', 'VALIDATION_ERROR:3', 'GAME_NOT_FOUND:4']);
      r.close();
    });
  });
});
