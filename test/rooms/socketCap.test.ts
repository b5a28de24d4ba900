// Room sockets count in the per-address socket cap (REALTIME_SOCKETS_PER_ADDRESS, default 50)
// together with the game stream's, the realtime channel's and the HTTP streams: one address
// cannot hold more sockets by joining rooms than by watching streams.
import assert from 'node:assert/strict';
import { Client, type Room } from '@colyseus/sdk';
import { openGame } from '../../src/gateway/index.ts';
import { newIp } from '../helpers/http.ts';
import { until } from '../helpers/poll.ts';
import { leaveRooms } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser } from '../helpers/users.ts';
import { WsClient } from '../helpers/ws.ts';
import { insertActiveGame } from '../support/fixtures.ts';

describe('room sockets in the per-address socket cap', () => {
  const joined: Room[] = [];
  afterEach(() => leaveRooms(joined.splice(0)));

  it('refuses the 51st socket of an address, game-room joins and realtime sockets alike, and takes one again once a room is left', async () => {
    const { service, config } = await testService();
    assert.equal(config.realtimeSocketsPerAddress, 50);
    const [white, black] = await Promise.all([createUser(), createUser()]);
    const gameId = await insertActiveGame(service.ctx.pool, white.id, black.id, { firstMoveDeadline: null });
    assert.equal(await openGame(gameId), true);
    const address = newIp();
    const sdk = new Client(service.url.replace('http', 'ws'), { headers: { 'x-forwarded-for': address } });
    // Anonymous spectators of one game, as the probe joined it: 50 seats, one socket each.
    for (let i = 0; i < 50; i++) joined.push(await sdk.joinById(gameId));
    await assert.rejects(sdk.joinById(gameId), 'the 51st room socket of the address');
    await assert.rejects(WsClient.open('/v1/realtime', { 'x-forwarded-for': address }), /429/, 'a realtime socket of the address');
    // Another address is not held back by this one.
    const elsewhere = await new Client(service.url.replace('http', 'ws'), { headers: { 'x-forwarded-for': newIp() } }).joinById(gameId);
    joined.push(elsewhere);
    // A room left frees its place (once the server has seen its socket close).
    await joined.shift()!.leave();
    joined.push(await until('a place to free up', () => sdk.joinById(gameId).catch(() => undefined)));
  });
});
