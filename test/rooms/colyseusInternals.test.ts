import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ClientState, matchMaker, Room, type Client } from '@colyseus/core';
import { Client as SdkClient, type Room as SdkRoom } from '@colyseus/sdk';
import { reservedSeatCount, RoomWrites, serializerOf, socketOf } from '../../rooms/colyseusInternals.ts';
import { GameState } from '../../rooms/schema/GameState.ts';
import { createActiveGame } from '../helpers/games.ts';
import { leaveRooms } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser } from '../helpers/users.ts';

/** A room with a state and nothing of ours, made by the matchmaker as every room is. */
class ProbeRoom extends Room<{ state: GameState }> {
  override autoDispose = false;
  override onCreate(): void {
    this.state = new GameState();
  }
}
const PROBE = 'colyseus_internals_probe';

/** A joined client that keeps what it is sent, as the transport's `raw` would be handed it. */
function fakeClient(sent: Uint8Array[]): Client {
  return { state: ClientState.JOINED, raw: (data: Uint8Array) => sent.push(data) } as unknown as Client;
}

/**
 * What rooms/colyseusInternals.ts takes from Colyseus past its public API, each field where and as
 * that module expects it: a Colyseus upgrade that moves one fails here, not as corrupt patches.
 */
describe('the Colyseus internals our rooms use', () => {
  const probes: Room[] = [];
  const opened: SdkRoom[] = [];

  before(async () => {
    await testService();
    matchMaker.defineRoomType(PROBE, ProbeRoom);
  });

  after(() => matchMaker.removeRoomType(PROBE));

  afterEach(async () => {
    await leaveRooms(opened);
    for (const room of probes.splice(0)) {
      room.clients.splice(0);
      await room.disconnect();
    }
  });

  const probe = async (): Promise<Room<{ state: GameState }>> => {
    const { roomId } = await matchMaker.createRoom(PROBE, {});
    const room = matchMaker.getLocalRoomById(roomId) as Room<{ state: GameState }>;
    probes.push(room);
    return room;
  };

  it("encodes a patch into room._serializer.encoder.sharedBuffer and hands that view to each client's raw", async () => {
    const room = await probe();
    const serializer = serializerOf(room);
    assert.ok(serializer.encoder.sharedBuffer instanceof Uint8Array);
    const sent: Uint8Array[] = [];
    room.clients.push(fakeClient(sent));
    room.state.fen = 'a position';
    room.broadcastPatch();
    assert.equal(sent.length, 1);
    assert.equal(sent[0].buffer, serializer.encoder.sharedBuffer.buffer, 'a view of the encoder buffer, not a copy');
    assert.equal(serializer.needFullEncode, true, 'a patch marks the join state for encoding again');
  });

  it('encodes the join state into fullEncodeBuffer with getFullState, and again only once needFullEncode is set', async () => {
    const room = await probe();
    room.broadcastPatch(); // the state's first changes, with nobody to send them to
    const serializer = serializerOf(room);
    assert.equal(typeof serializer.getFullState, 'function');
    const first = serializer.getFullState();
    assert.equal(first.buffer, serializer.fullEncodeBuffer.buffer);
    assert.equal(serializer.needFullEncode, false);
    assert.equal(serializer.getFullState(), first, 'kept while nothing changed');
    serializer.needFullEncode = true;
    assert.notEqual(serializer.getFullState(), first, 'encoded again');
  });

  it("gives every room the same encode buffers, and each join its own room's state", async () => {
    const [a, b] = [await probe(), await probe()];
    a.state.fen = 'position a';
    b.state.fen = 'position b';
    for (const room of [a, b]) {
      new RoomWrites(room).shareEncodeBuffers();
      room.broadcastPatch(); // with nobody to send them to: the join state is what holds the changes
    }
    assert.equal(serializerOf(a).encoder.sharedBuffer, serializerOf(b).encoder.sharedBuffer);
    assert.equal(serializerOf(a).fullEncodeBuffer, serializerOf(b).fullEncodeBuffer);
    const joinA = Buffer.from(serializerOf(a).getFullState());
    const joinB = Buffer.from(serializerOf(b).getFullState());
    assert.notDeepEqual(joinA, joinB);
    assert.deepEqual(Buffer.from(serializerOf(a).getFullState()), joinA, "b's join state was encoded over a's: a encodes its own again");
  });

  it('hands the sockets a copy of a view of a shared buffer, one per patch for all clients', async () => {
    const room = await probe();
    const writes = new RoomWrites(room);
    writes.shareEncodeBuffers();
    const [one, two]: Uint8Array[][] = [[], []];
    for (const sent of [one, two]) {
      const client = fakeClient(sent);
      writes.ownFrames(client);
      room.clients.push(client);
    }
    room.state.fen = 'a position';
    room.broadcastPatch();
    room.state.fen = 'another';
    room.broadcastPatch();
    const shared = serializerOf(room).encoder.sharedBuffer.buffer;
    assert.equal(one.length, 2);
    assert.ok([...one, ...two].every((frame) => frame.buffer !== shared), 'no socket holds a view of the encoder buffer');
    assert.deepEqual([one[0] === two[0], one[1] === two[1], one[0] === one[1]], [true, true, false]);
  });

  it("reaches a joined client's net.Socket as client.ref._socket, corked until the end of the turn", async () => {
    const { service } = await testService();
    const game = await createActiveGame(await createUser(), await createUser());
    opened.push(await new SdkClient(service.url.replace('http', 'ws')).joinById(game.id, { token: game.white.accessToken }));
    const room = matchMaker.getLocalRoomById(game.id)!;
    const socket = socketOf(room.clients[0]);
    assert.ok(socket instanceof Socket);
    new RoomWrites(room).cork();
    assert.equal(socket.writableCorked, 1);
    await nextTurn();
    assert.equal(socket.writableCorked, 0);
  });

  it('counts the seats reserved and not yet taken (room._reservedSeats)', async () => {
    const room = await probe();
    assert.equal(reservedSeatCount(room), 0);
    await matchMaker.reserveSeatFor((await matchMaker.findRoomsByIds([room.roomId])).get(room.roomId)!, {});
    assert.equal(reservedSeatCount(room), 1);
  });
});
