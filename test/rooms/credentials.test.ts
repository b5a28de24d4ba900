// DESIGN 2.12: a room socket lives no longer than the credential it joined with. Revoking a
// personal token, logging the session out, changing the password or the token's expiry closes
// it (error UNAUTHORIZED, then close 4401), and a reconnection authenticates again.
import assert from 'node:assert/strict';
import { matchMaker } from '@colyseus/core';
import { Client, type Room } from '@colyseus/sdk';
import { api } from '../helpers/http.ts';
import { deleteToken, personalToken, roomEnding, secondSession, withClockSkipped } from '../helpers/credentials.ts';
import { uniquePool, waitForGame } from '../helpers/games.ts';
import { command, leaveRooms, nextMessage } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { openGame } from '../../src/gateway/index.ts';
import { insertActiveGame } from '../support/fixtures.ts';

describe('room sockets end with their credential (DESIGN 2.12)', () => {
  let white: TestUser;
  let black: TestUser;
  let gameId: string;
  let sdk: Client;
  const joined: Room[] = [];

  beforeEach(async () => {
    const { service } = await testService();
    [white, black] = await Promise.all([createUser(), createUser()]);
    gameId = await insertActiveGame(service.ctx.pool, white.id, black.id, { firstMoveDeadline: null });
    assert.equal(await openGame(gameId), true);
    sdk = new Client(service.url.replace('http', 'ws'));
  });

  afterEach(() => leaveRooms(joined.splice(0)));

  async function join(token: string, roomId = gameId): Promise<Room> {
    const room = await sdk.joinById(roomId, { token });
    joined.push(room);
    await new Promise<void>((resolve) => (room.state?.fen ? resolve() : room.onStateChange.once(() => resolve())));
    return room;
  }

  /** Cuts `room`'s socket as a network would (no leave): resolves once the server saw it close. */
  function drop(room: Room): Promise<void> {
    const server = matchMaker.getLocalRoomById(gameId)!;
    const seen = new Promise<void>((resolve) => server.clients.getById(room.sessionId)!.ref.once('close', () => resolve()));
    room.reconnection.enabled = false;
    (room.connection as any).transport.ws.terminate();
    return seen;
  }

  const whiteConnected = () => (matchMaker.getLocalRoomById(gameId)!.state as { white: { connected: boolean } }).white.connected;

  it("closes a game room socket (error UNAUTHORIZED, then 4401) when its personal token is deleted, and frees the player's seat", async () => {
    const pat = await personalToken(white, ['games:play']);
    const room = await join(pat.token);
    assert.equal((await command(room, 'move', { from: 'e2', to: 'e4' })).type, 'move:ok');
    const ending = roomEnding(room);
    await deleteToken(white, pat.id);
    const { error, code } = await ending;
    assert.equal(error?.code, 'UNAUTHORIZED');
    assert.equal(code, 4401);
    // The seat waits for no reconnection: the reconnection token leads nowhere.
    await assert.rejects(sdk.reconnect(room.reconnectionToken), /reconnect|NOT_FOUND|seat/i);
    assert.equal(whiteConnected(), false);
  });

  it('gives up the seat waiting for a reconnection when the token is deleted meanwhile', async () => {
    const pat = await personalToken(white, ['games:play']);
    const room = await join(pat.token);
    await drop(room);
    await deleteToken(white, pat.id);
    await assert.rejects(sdk.reconnect(room.reconnectionToken));
    assert.equal(whiteConnected(), false);
  });

  it('authenticates a reconnection again: a session ended where this node did not hear of it is refused UNAUTHORIZED', async () => {
    const { service } = await testService();
    const room = await join(white.accessToken);
    await drop(room);
    // Behind the service's back: no revocation is published, only the reconnection's check can see it.
    await service.ctx.pool.query(`UPDATE sessions SET revoked_at = now(), revoked_reason = 'logout' WHERE user_id = $1`, [white.id]);
    await assert.rejects(sdk.reconnect(room.reconnectionToken), /UNAUTHORIZED/);
    assert.equal(whiteConnected(), false);
  });

  it("closes the room sockets of the other sessions when the password changes, and keeps the asking session's", async () => {
    const other = await join(await secondSession(white));
    const asking = await join(white.accessToken);
    const ending = roomEnding(other);
    const res = await api('POST', '/v1/users/me/password', {
      token: white.accessToken,
      ip: white.ip,
      body: { current_password: white.password, new_password: 'a-new-secret-9' },
    });
    assert.equal(res.status, 200, res.text);
    const { error, code } = await ending;
    assert.deepEqual([error?.code, code], ['UNAUTHORIZED', 4401]);
    assert.equal((await command(asking, 'move', { from: 'e2', to: 'e4' })).type, 'move:ok');
  });

  it('closes the room socket of a session that logs out', async () => {
    const room = await join(white.accessToken);
    const ending = roomEnding(room);
    assert.equal((await api('POST', '/v1/auth/logout', { token: white.accessToken, ip: white.ip })).status, 204);
    const { error, code } = await ending;
    assert.deepEqual([error?.code, code], ['UNAUTHORIZED', 4401]);
  });

  it("closes a lobby socket at its access token's expiry (the service's clock moved past it, nothing slept)", async () => {
    const room = await sdk.joinOrCreate('lobby', { token: white.accessToken });
    joined.push(room);
    room.onMessage('challenges', () => {});
    const ending = roomEnding(room);
    const { error, code } = await withClockSkipped(3600_000 + 1000, () => ending);
    assert.equal(error?.code, 'UNAUTHORIZED');
    assert.match(error!.message, /expired/);
    assert.equal(code, 4401);
  });

  it('closes a seeker and cancels its seek when its token is deleted', async () => {
    const seeker = await createUser();
    const pat = await personalToken(seeker, ['games:play']);
    const room = await sdk.joinOrCreate('seek_pool', { ...uniquePool(), rated: false, token: pat.token });
    joined.push(room);
    const seeking = nextMessage(room, 'seeking');
    const ending = roomEnding(room);
    const { seek_id } = await seeking;
    await deleteToken(seeker, pat.id);
    const { error, code } = await ending;
    assert.deepEqual([error?.code, code], ['UNAUTHORIZED', 4401]);
    const game = await waitForGame(seek_id, seeker, (g) => g.status !== 'pending');
    assert.deepEqual([game.status, game.abort_reason], ['abandoned', 'cancelled']);
  });
});
