// DESIGN 2.12: a personal access token works where an access token does — in a game room (with
// games:play) and on the user: channel, over a realtime socket or GET /stream/events (with games:read).
import assert from 'node:assert/strict';
import { Client, type Room } from '@colyseus/sdk';
import { openGame } from '../../src/gateway/index.ts';
import { api } from '../helpers/http.ts';
import { command, leaveRooms } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { NdjsonClient } from '../helpers/ndjson.ts';
import { WsClient } from '../helpers/ws.ts';
import { insertActiveGame } from '../support/fixtures.ts';

async function tokenOf(user: TestUser, scopes: string[]): Promise<string> {
  const res = await api('POST', '/v1/account/tokens', { token: user.accessToken, ip: user.ip, body: { description: 'bot', scopes } });
  assert.equal(res.status, 201, res.text);
  return res.body.data.token;
}

describe('personal access tokens in rooms and on the realtime channel', () => {
  let white: TestUser;
  let black: TestUser;
  let sdk: Client;
  let gameId: string;
  const joined: Room[] = [];
  const sockets: WsClient[] = [];

  beforeEach(async () => {
    const { service } = await testService();
    [white, black] = await Promise.all([createUser(), createUser()]);
    gameId = await insertActiveGame(service.ctx.pool, white.id, black.id, { initialTime: 180, increment: 2 });
    assert.equal(await openGame(gameId), true);
    sdk = new Client(service.url.replace('http', 'ws'));
  });

  afterEach(async () => {
    await leaveRooms(joined);
    for (const s of sockets.splice(0)) s.close();
  });

  const join = async (token: string) => {
    const room = await sdk.joinById(gameId, { token });
    joined.push(room);
    await new Promise<void>((resolve) => (room.state?.fen ? resolve() : room.onStateChange.once(() => resolve())));
    return room;
  };

  it('joins a game room and plays a move with a games:play token', async () => {
    const room = await join(await tokenOf(white, ['games:play']));
    const answer = await command(room, 'move', { from: 'e2', to: 'e4' });
    assert.equal(answer.type, 'move:ok', JSON.stringify(answer));
    const game = await api('GET', `/v1/games/${gameId}`, { token: black.accessToken, ip: black.ip });
    assert.equal(game.body.data.move_count, 1);
  });

  it('refuses to seat a token without games:play (MISSING_SCOPE)', async () => {
    const token = await tokenOf(white, ['games:read', 'account:read']);
    await assert.rejects(sdk.joinById(gameId, { token }), (err: Error) => /MISSING_SCOPE/.test(err.message));
  });

  async function subscribe(userId: string, token: string): Promise<WsClient> {
    const socket = await WsClient.open('/v1/realtime');
    sockets.push(socket);
    socket.send({ type: 'subscribe', channel: `user:${userId}`, token });
    return socket;
  }

  it('opens the user: channel to a token with games:read', async () => {
    const socket = await subscribe(white.id, await tokenOf(white, ['games:read']));
    assert.equal((await socket.next('subscribed')).channel, `user:${white.id}`);
  });

  it('refuses the user: channel to a token without games:read (MISSING_SCOPE)', async () => {
    const socket = await subscribe(white.id, await tokenOf(white, ['games:play', 'account:read']));
    const refused = await socket.next('error');
    assert.equal(refused.code, 'MISSING_SCOPE');
    assert.equal(refused.channel, `user:${white.id}`);
  });

  it('ends a user: channel subscription when its token is deleted', async () => {
    const token = await tokenOf(white, ['games:read']);
    const socket = await subscribe(white.id, token);
    await socket.next('subscribed');
    const id = (await api('GET', '/v1/account/tokens', { token: white.accessToken, ip: white.ip })).body.data[0].id;
    assert.equal((await api('DELETE', `/v1/account/tokens/${id}`, { token: white.accessToken, ip: white.ip })).status, 204);
    const ended = await socket.until('error');
    assert.equal(ended.code, 'UNAUTHORIZED');
  });

  it('streams GET /stream/events to a token with games:read, and refuses one without (403 MISSING_SCOPE, details.scope)', async () => {
    const allowed = await NdjsonClient.open('/v1/stream/events', { authorization: `Bearer ${await tokenOf(white, ['games:read'])}` });
    assert.equal(allowed.status, 200);
    allowed.close();
    const refused = await NdjsonClient.open('/v1/stream/events', { authorization: `Bearer ${await tokenOf(white, ['games:play'])}` });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'MISSING_SCOPE');
    assert.deepEqual(refused.body.error.details, { scope: ['games:read'] });
  });
});
