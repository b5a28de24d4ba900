import { Protocol, type Client, type Room } from '@colyseus/core';
import { Encoder } from '@colyseus/schema';

/*
 * The only place our rooms reach past Colyseus's public API (checked by
 * test/rooms/colyseusInternals.test.ts, which fails when an upgrade moves a field). Each field is
 * named with where it comes from, as of @colyseus/core 0.18, @colyseus/schema 5, ws 8:
 *
 * - `room._serializer` (private): core build/Room.mjs, set by `setSerializer`, which the `state`
 *   setter calls with a new SchemaSerializer; read by `broadcastPatch` (`applyPatches`) and
 *   `sendFullState` (`getFullState`).
 * - `serializer.encoder.sharedBuffer`: schema build/index.mjs, `Encoder.sharedBuffer`, the buffer
 *   `Encoder.encode` writes a patch into and returns a view of (`_encodeChannel`: `return
 *   buffer.subarray(0, it.offset)`); `resize` puts a bigger one in its place when a patch outgrows it.
 * - `serializer.fullEncodeBuffer`, `serializer.needFullEncode`, `serializer.getFullState`: core
 *   build/serializer/SchemaSerializer.mjs. `getFullState` encodes the join state into
 *   `fullEncodeBuffer` and keeps the view (`fullEncodeCache`) until `needFullEncode` is set
 *   (`applyPatches` sets it after each patch).
 * - `client.ref._socket`: ws-transport build/WebSocketClient.mjs keeps the ws WebSocket as `ref`;
 *   ws lib/websocket.js `setSocket` keeps its net.Socket as `_socket`.
 * - `client.raw` (public, replaced per client): ws-transport WebSocketClient `raw(data, options,
 *   cb)` → `ref.send`; every frame a room sends goes through it (SchemaSerializer
 *   `sendClientFrame`, Room `sendFullState`, core build/Transport.mjs `enqueueClientRaw`).
 * - `room._reservedSeats` (private): core build/Room.mjs, the seats reserved and not yet taken,
 *   by session id (`hasReachedMaxClients` counts them).
 */

export type CorkableSocket = { cork(): void; uncork(): void };
export type SchemaSerializer = {
  encoder: { sharedBuffer: Uint8Array };
  fullEncodeBuffer: Uint8Array;
  needFullEncode: boolean;
  getFullState: (...args: unknown[]) => Uint8Array;
};

export const serializerOf = (room: Room) => (room as unknown as { _serializer: SchemaSerializer })._serializer;
export const socketOf = (client: Client) => (client as unknown as { ref?: { _socket?: CorkableSocket } }).ref?._socket;

/** The encode buffers every game room shares (shareEncodeBuffers), each frame's first byte as Colyseus sets it. */
const SHARED = {
  patch: new Uint8Array(Encoder.BUFFER_SIZE),
  full: startingWith(Protocol.ROOM_STATE, Encoder.BUFFER_SIZE),
  fullOwner: undefined as SchemaSerializer | undefined,
};

function startingWith(first: number, size: number): Uint8Array {
  const buffer = new Uint8Array(size);
  buffer[0] = first;
  return buffer;
}

/** The seats a room has reserved and that are not taken yet: a client on its way in. */
export const reservedSeatCount = (room: Room): number => Object.keys((room as unknown as { _reservedSeats: object })._reservedSeats).length;

/**
 * How a game room's frames reach its sockets: encoded into buffers all game rooms share, each
 * socket given bytes of its own, and the writes of one turn of the event loop sent together.
 */
export class RoomWrites {
  private corked: CorkableSocket[] | undefined;
  private lastView: Uint8Array | undefined;
  private lastCopy: Uint8Array | undefined;

  constructor(private readonly room: Room) {}

  /**
   * A room's serializer holds two 16 KB buffers (the patch encoder's and the join state's): 32 KB
   * of every live game's memory for frames of a few hundred bytes. They are only needed while a
   * frame is encoded and copied (ownFrames), which never interleaves with another room's, so
   * every game room encodes into the same two. The join state is cached as a view of its buffer
   * (`fullEncodeCache`): a room re-encodes it when another room has used the buffer since.
   * Called once the room has its state (which makes its serializer).
   */
  shareEncodeBuffers(): void {
    const serializer = serializerOf(this.room);
    serializer.encoder.sharedBuffer = SHARED.patch;
    serializer.fullEncodeBuffer = SHARED.full;
    const getFullState = serializer.getFullState.bind(serializer);
    serializer.getFullState = (...args) => {
      if (SHARED.fullOwner !== serializer) [SHARED.fullOwner, serializer.needFullEncode] = [serializer, true];
      return getFullState(...args);
    };
  }

  /**
   * Gives the socket of `client` its own bytes instead of a view into memory an encoder reuses.
   * The encoder returns a view of its buffer (the join state likewise one of `fullEncodeBuffer`);
   * the serializer hands that view to `client.raw` as is; ws frames it without copying (ws
   * lib/sender.js, `Sender.frame` returns `[header, data]`) and a net.Socket that cannot write at
   * once keeps the chunk by reference. So a socket that is corked (cork) or backed up by a slow
   * reader still holds the view when the next patch is encoded into the same buffer: two events in
   * one tick (a mating move and game_end; a lapsed draw offer and the move) once sent every client
   * the second patch's bytes under the first one's length, the decoder answered "definition
   * mismatch" and kept the old FEN and turn. Every game room encodes into one process-wide buffer
   * (shareEncodeBuffers), so such a view is copied once, as it is first sent, and the copy goes to
   * every client of that patch; frames in fresh memory (Colyseus's messages: core
   * build/Protocol.mjs, `getMessageBytes.raw`) are sent as they are. Called for every client
   * object: a reconnection comes as a new one.
   */
  ownFrames(client: Client): void {
    const raw = client.raw.bind(client);
    client.raw = (data, options, cb) => raw(this.owned(data), options, cb);
  }

  /**
   * Holds the clients' socket writes until the end of this turn of the event loop, so a patch and
   * the command's answer (or a second patch and game_end) leave in one write (one syscall) instead
   * of one each: on loopback a write costs ~180 µs, more than the rest of a move's socket work. One
   * uncork per room per turn, however many events and clients. A corked socket keeps what it is
   * given by reference until it uncorks: this is safe only because no frame handed to a socket is
   * a view of memory an encoder reuses (ownFrames).
   */
  cork(): void {
    if (this.corked) return;
    const corked: CorkableSocket[] = [];
    for (const client of this.room.clients) {
      const socket = socketOf(client);
      if (!socket) continue;
      socket.cork();
      corked.push(socket);
    }
    this.corked = corked;
    setImmediate(this.uncork);
  }

  private readonly uncork = (): void => {
    const corked = this.corked;
    this.corked = undefined;
    for (const socket of corked ?? []) socket.uncork();
  };

  private owned(data: Uint8Array): Uint8Array {
    // A patch too big for the shared buffer makes the room's encoder a bigger one of its own, reused too.
    const own = serializerOf(this.room).encoder.sharedBuffer;
    if (data.buffer !== SHARED.patch.buffer && data.buffer !== SHARED.full.buffer && data.buffer !== own.buffer) return data;
    if (data !== this.lastView) [this.lastView, this.lastCopy] = [data, Buffer.from(data)];
    return this.lastCopy!;
  }
}
