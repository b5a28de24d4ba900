import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { createActiveGame } from '../helpers/games.ts';
import { newIp } from '../helpers/http.ts';
import { until } from '../helpers/poll.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { WsClient } from '../helpers/ws.ts';

/** An upgrade the service refused: its HTTP status and body. */
async function refusedUpgrade(path: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const { service } = await testService();
  const ws = new WebSocket(`${service.url.replace('http', 'ws')}${path}`, { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => (ws.close(), reject(new Error('the upgrade was accepted'))));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    ws.once('error', () => {});
  });
}

const openSocketsOf = async (address: string, path: string, count: number) =>
  Promise.all(Array.from({ length: count }, () => WsClient.open(path, { 'x-forwarded-for': address })));

/** Subscribes `user`'s own channel on `socket`: the answer, subscribed or an error. */
async function subscribeOwn(socket: WsClient, user: TestUser) {
  socket.send({ type: 'subscribe', channel: `user:${user.id}`, token: user.accessToken });
  return socket.next();
}

describe('realtime socket caps (per address, per user)', () => {
  it('refuses the upgrade past REALTIME_SOCKETS_PER_ADDRESS (default 50) with 429 and the error envelope, on either path', async () => {
    const { config } = await testService();
    assert.equal(config.realtimeSocketsPerAddress, 50);
    const address = newIp();
    const held = await openSocketsOf(address, '/v1/realtime', 50);
    for (const path of ['/v1/realtime', `/v1/games/${crypto.randomUUID()}/stream`]) {
      const refused = await refusedUpgrade(path, { 'x-forwarded-for': address });
      assert.equal(refused.status, 429);
      assert.equal(refused.body.success, false);
      assert.equal(refused.body.error.code, 'RATE_LIMIT_EXCEEDED');
      assert.match(refused.body.error.message, /50/);
    }
    // Another address is not held back by this one.
    (await WsClient.open('/v1/realtime', { 'x-forwarded-for': newIp() })).close();
    // A socket that goes frees its place.
    held[0].close();
    await held[0].closed;
    const again = await until('a place to free up', async () => {
      try {
        return await WsClient.open('/v1/realtime', { 'x-forwarded-for': address });
      } catch {
        return undefined;
      }
    });
    again.send({ type: 'ping' });
    assert.equal((await again.next()).type, 'pong');
    for (const s of [again, ...held]) s.close();
  });

  it('refuses a user channel on a socket past REALTIME_SOCKETS_PER_USER (default 20); the socket stays for public channels', async () => {
    const { config } = await testService();
    assert.equal(config.realtimeSocketsPerUser, 20);
    const user = await createUser();
    // Each socket from an address of its own: the per-user cap holds across addresses.
    const sockets = await Promise.all(Array.from({ length: 21 }, () => WsClient.open('/v1/realtime', { 'x-forwarded-for': newIp() })));
    for (const s of sockets.slice(0, 20)) assert.equal((await subscribeOwn(s, user)).type, 'subscribed');
    const over = sockets[20];
    const refused = await subscribeOwn(over, user);
    assert.deepEqual([refused.type, refused.code, refused.channel], ['error', 'RATE_LIMIT_EXCEEDED', `user:${user.id}`]);
    assert.match(refused.message, /20/);
    over.send({ type: 'subscribe', channel: 'lobby' });
    assert.equal((await over.next()).type, 'subscribed', 'a public channel needs no account');
    // A second channel of the same user on a socket already counted is no new socket.
    const first = sockets[0];
    first.send({ type: 'unsubscribe', channel: `user:${user.id}` });
    await first.next('unsubscribed');
    assert.equal((await subscribeOwn(first, user)).type, 'subscribed');
    // A socket of the user that closes makes room.
    sockets[1].close();
    await sockets[1].closed;
    await until('the user to have room', async () => {
      const answer = await subscribeOwn(over, user);
      return answer.type === 'subscribed';
    });
    for (const s of sockets) s.close();
  });

  it('closes a stream opened with the token of a user past the cap (4429), after saying why', async () => {
    const [w, b] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(w, b);
    const sockets = await Promise.all(Array.from({ length: 20 }, () => WsClient.open('/v1/realtime', { 'x-forwarded-for': newIp() })));
    for (const s of sockets) assert.equal((await subscribeOwn(s, w)).type, 'subscribed');
    const stream = await WsClient.open(`/v1/games/${game.id}/stream?token=${w.accessToken}`, { 'x-forwarded-for': newIp() });
    const error = await stream.next('error');
    assert.equal(error.code, 'RATE_LIMIT_EXCEEDED');
    assert.deepEqual(await stream.closed, { code: 4429, reason: 'too many sockets' });
    // Without a token the stream is anyone's, and counts for no user.
    const anonymous = await WsClient.open(`/v1/games/${game.id}/stream`, { 'x-forwarded-for': newIp() });
    assert.equal((await anonymous.next()).type, 'state');
    for (const s of [anonymous, ...sockets]) s.close();
  });
});
