// DESIGN 2.12: a stream or a subscription lives no longer than the credential that opened it.
// Revoking a personal token, logging the session out, changing the password or the credential's
// expiry ends it: the WebSocket stream says error UNAUTHORIZED and closes 4401, the NDJSON
// stream's last line is that error, a realtime subscription is refused UNAUTHORIZED (the socket
// stays for its other channels).
import assert from 'node:assert/strict';
import { api } from '../helpers/http.ts';
import { deleteToken, personalToken, secondSession, withClockSkipped } from '../helpers/credentials.ts';
import { as } from '../helpers/games.ts';
import { NdjsonClient } from '../helpers/ndjson.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { WsClient } from '../helpers/ws.ts';
import { insertActiveGame } from '../support/fixtures.ts';

describe('streams and subscriptions end with their credential (DESIGN 2.12)', () => {
  let white: TestUser;
  let black: TestUser;
  let gameId: string;

  beforeEach(async () => {
    const { service } = await testService();
    [white, black] = await Promise.all([createUser(), createUser()]);
    gameId = await insertActiveGame(service.ctx.pool, white.id, black.id, { firstMoveDeadline: null });
  });

  const sayToPlayers = (text: string) =>
    api('POST', `/v1/games/${gameId}/chat`, as(black, { text, room: 'player' })).then((res) => assert.equal(res.status, 201, res.text));

  it("ends the NDJSON game stream opened with a personal token when the token is deleted: its last line UNAUTHORIZED, no player chat after", async () => {
    const pat = await personalToken(white, ['games:read']);
    const stream = await NdjsonClient.open(`/v1/games/${gameId}/stream`, { authorization: `Bearer ${pat.token}` });
    await stream.next('state');
    await sayToPlayers('before');
    assert.equal((await stream.next('chat')).message.text, 'before');
    await deleteToken(white, pat.id);
    const error = await stream.next('error');
    assert.equal(error.code, 'UNAUTHORIZED');
    assert.equal(await stream.ended, 'complete');
    await sayToPlayers('after');
    assert.ok(!stream.seen.some((m) => m.type === 'chat' && m.message.text === 'after'));
  });

  it('closes the WebSocket game stream opened with a personal token (error UNAUTHORIZED, then 4401) when the token is deleted', async () => {
    const pat = await personalToken(white, ['games:read']);
    const stream = await WsClient.open(`/v1/games/${gameId}/stream?token=${pat.token}`);
    await stream.next('state');
    await deleteToken(white, pat.id);
    assert.equal((await stream.until('error')).code, 'UNAUTHORIZED');
    assert.equal((await stream.closed).code, 4401);
  });

  it('ends a game: subscription opened with a token when the token is deleted; the socket serves its other channels', async () => {
    const pat = await personalToken(white, ['games:read']);
    const socket = await WsClient.open('/v1/realtime');
    socket.send({ type: 'subscribe', channel: `game:${gameId}`, token: pat.token, id: 1 });
    await socket.next('subscribed');
    await socket.next('state');
    await deleteToken(white, pat.id);
    const ended = await socket.until('error');
    assert.deepEqual([ended.code, ended.channel], ['UNAUTHORIZED', `game:${gameId}`]);
    await sayToPlayers('after');
    socket.send({ type: 'ping', id: 2 });
    assert.equal((await socket.next('pong')).id, 2, 'the socket is still open, and nothing of the game came');
    socket.close();
  });

  it('ends the streams of the other sessions when the password changes (POST /users/me/password)', async () => {
    const other = await secondSession(white);
    const [stream, events] = await Promise.all([
      WsClient.open(`/v1/games/${gameId}/stream?token=${other}`),
      NdjsonClient.open('/v1/stream/events', { authorization: `Bearer ${other}` }),
    ]);
    await stream.next('state');
    const res = await api('POST', '/v1/users/me/password', {
      token: white.accessToken,
      ip: white.ip,
      body: { current_password: white.password, new_password: 'a-new-secret-9' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal((await stream.until('error')).code, 'UNAUTHORIZED');
    assert.equal((await stream.closed).code, 4401);
    assert.equal((await events.next('error')).code, 'UNAUTHORIZED');
    assert.equal(await events.ended, 'complete');
  });

  it('closes the game stream of a session that logs out', async () => {
    const stream = await WsClient.open(`/v1/games/${gameId}/stream?token=${white.accessToken}`);
    await stream.next('state');
    assert.equal((await api('POST', '/v1/auth/logout', as(white))).status, 204);
    assert.equal((await stream.until('error')).code, 'UNAUTHORIZED');
    assert.equal((await stream.closed).code, 4401);
  });

  it("ends GET /stream/events when its personal token reaches expires_at (the service's clock moved past it, nothing slept)", async () => {
    const { clock } = await testService();
    const pat = await personalToken(white, ['games:read'], new Date(clock.now() + 3600_000));
    const events = await NdjsonClient.open('/v1/stream/events', { authorization: `Bearer ${pat.token}` });
    assert.equal(events.status, 200);
    const error = await withClockSkipped(3600_000 + 1000, () => events.next('error'));
    assert.deepEqual([error.code, error.channel], ['UNAUTHORIZED', `user:${white.id}`]);
    assert.match(error.message, /expired/);
    assert.equal(await events.ended, 'complete');
  });

  it("closes a stream at its session's access token expiry", async () => {
    const stream = await WsClient.open(`/v1/games/${gameId}/stream?token=${white.accessToken}`);
    await stream.next('state');
    const closed = await withClockSkipped(3600_000 + 1000, () => stream.closed);
    assert.equal(closed.code, 4401);
  });
});
