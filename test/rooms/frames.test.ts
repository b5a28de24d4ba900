import assert from 'node:assert/strict';
import { matchMaker } from '@colyseus/core';
import { encode } from '@colyseus/schema';
import { Client, type Room } from '@colyseus/sdk';
import fc from 'fast-check';
import { Packr, unpack } from 'msgpackr';
import { frameProblem } from '../../rooms/frames.ts';
import type { GameRoom } from '../../rooms/GameRoom.ts';
import { openGame } from '../../src/gateway/index.ts';
import { insertActiveGame } from '../support/fixtures.ts';
import { command, nextMessage, plainState, statesSettle } from '../helpers/rooms.ts';
import { testService } from '../helpers/service.ts';
import { createUser } from '../helpers/users.ts';

const ROOM_DATA = 13;

/** A frame exactly as the SDK's `room.send(type, payload)` writes it. */
function sdkFrame(type: string, payload?: unknown): Uint8Array {
  const head = new Uint8Array(8 + Buffer.byteLength(type) * 2);
  head[0] = ROOM_DATA;
  const it = { offset: 1 };
  encode.string(head, type, it);
  const body = payload === undefined ? new Uint8Array(0) : new Packr().pack(payload);
  return Buffer.concat([head.subarray(0, it.offset), body]);
}

/** What Colyseus does with a ROOM_DATA frame before a handler sees it (RoomMessages.onData). */
function colyseusDecodes(frame: Uint8Array): boolean {
  const errors: string[] = [];
  const { error } = console;
  console.error = (...args: unknown[]) => void errors.push(args.join(' '));
  try {
    const length = frame[1] & 0x1f || frame[2];
    const start = frame[1] === 0xd9 ? 3 : 2;
    new TextDecoder('utf-8', { fatal: true }).decode(frame.subarray(start, start + length));
    if (start + length < frame.length) unpack(frame.subarray(start + length));
    return errors.length === 0;
  } catch {
    return false;
  } finally {
    console.error = error;
  }
}

describe('client frames (rooms/frames.ts)', () => {
  it('lets through every frame the SDK writes: commands with and without payloads, join, leave, ping', () => {
    for (const frame of [
      sdkFrame('move', { from: 'e2', to: 'e4', promotion: null, lag: 35, id: 7 }),
      sdkFrame('resign'),
      sdkFrame('answer_draw', { offer_id: 'x', accept: true, id: 'abc' }),
      sdkFrame('a'.repeat(40), { deep: [1, 2, { x: 'é😀' }] }),
      Uint8Array.of(10),
      Uint8Array.of(12),
      Uint8Array.of(18),
    ]) {
      assert.equal(frameProblem(frame), undefined, Buffer.from(frame).toString('hex'));
    }
  });

  it('refuses what Colyseus would choke on or does not serve', () => {
    const cases: Record<string, Uint8Array> = {
      empty: new Uint8Array(0),
      'unknown protocol code': Uint8Array.of(99, 1, 2),
      'a request (not served)': Uint8Array.of(21, 1, 0xa4, 0x6d, 0x6f, 0x76, 0x65),
      'bytes after a bare code': Uint8Array.of(10, 0),
      'a numeric type': Uint8Array.of(ROOM_DATA, 0x05),
      'an empty type': Uint8Array.of(ROOM_DATA, 0xa0),
      'a type cut short': Uint8Array.of(ROOM_DATA, 0xa5, 0x6d, 0x6f),
      'a type that is not UTF-8': Uint8Array.of(ROOM_DATA, 0xa2, 0xfc, 0xfd),
      'a payload cut short': Buffer.concat([sdkFrame('move'), Uint8Array.of(0x82, 0xa4, 0x66)]),
      'bytes after the payload': Buffer.concat([sdkFrame('move', { a: 1 }), Uint8Array.of(0x01)]),
      'an unknown extension': Buffer.concat([sdkFrame('move'), Uint8Array.of(0xd4, 0x54, 0x00)]),
    };
    for (const [name, frame] of Object.entries(cases)) assert.equal(typeof frameProblem(frame), 'string', name);
  });

  it('never throws on junk, and whatever it lets through Colyseus decodes without an error', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 64 }),
          fc.uint8Array({ maxLength: 64 }).map((b) => Uint8Array.of(ROOM_DATA, ...b)),
          fc.tuple(fc.string({ minLength: 1, maxLength: 20 }), fc.uint8Array({ maxLength: 30 })).map(([t, junk]) => Buffer.concat([sdkFrame(t), junk])),
        ),
        (frame) => {
          const problem = frameProblem(frame);
          if (problem === undefined && frame[0] === ROOM_DATA) assert.ok(colyseusDecodes(frame), Buffer.from(frame).toString('hex'));
        },
      ),
      { numRuns: 5000 },
    );
  });

  describe('over a real socket', () => {
    const joined: Room[] = [];
    afterEach(async () => {
      await Promise.all(joined.splice(0).map((r) => Promise.race([r.leave().catch(() => {}), new Promise((res) => setTimeout(res, 1000))])));
    });

    const metric = async (kind: string) => {
      const { service } = await testService();
      const text = await (await fetch(`${service.url}/metrics`)).text();
      return Number(text.match(new RegExp(`chess_refusals_total\\{kind="${kind}"\\} (\\d+)`))?.[1] ?? NaN);
    };

    it("answers junk in the lobby (no account needed) with an error message, counts it, and keeps the socket", async () => {
      const { service } = await testService();
      const sdk = new Client(service.url.replace('http', 'ws'));
      const lobby = await sdk.joinOrCreate('lobby');
      joined.push(lobby);
      const before = await metric('malformed_frame');
      for (const junk of [Uint8Array.of(ROOM_DATA, 0xff, 0xff), Uint8Array.of(ROOM_DATA, 0xa1, 0x61, 0x82, 0xa4, 0x66), Uint8Array.of(7, 7, 7)]) {
        const answer = nextMessage(lobby, 'error');
        (lobby as unknown as { connection: { send(d: Uint8Array): void } }).connection.send(junk);
        const error = await answer;
        assert.equal(error.code, 'VALIDATION_ERROR');
        assert.match(error.message, /^Malformed frame: /);
      }
      assert.equal((await metric('malformed_frame')) - before, 3);
      assert.equal(lobby.connection.isOpen, true, 'the socket stays open');
    });

    it('leaves a game untouched by junk from its player: the state is the same on every client, and the next move plays', async () => {
      const { service } = await testService();
      const [white, black] = await Promise.all([createUser(), createUser()]);
      const gameId = await insertActiveGame(service.ctx.pool, white.id, black.id);
      assert.equal(await openGame(gameId), true);
      const sdk = new Client(service.url.replace('http', 'ws'));
      const join = async (token: string) => {
        const room = await sdk.joinById(gameId, { token });
        joined.push(room);
        await new Promise<void>((resolve) => ((room.state as any)?.fen ? resolve() : room.onStateChange.once(() => resolve())));
        return room;
      };
      const [w, b] = [await join(white.accessToken), await join(black.accessToken)];
      const server = () => plainState((matchMaker.getLocalRoomById(gameId) as GameRoom).state);
      const beforeJunk = server();
      const junkSent = nextMessage(w, 'error');
      (w as unknown as { connection: { send(d: Uint8Array): void } }).connection.send(
        Buffer.concat([sdkFrame('move'), Uint8Array.of(0x82, 0xa4, 0x66)]), // a move whose payload is cut short
      );
      assert.equal((await junkSent).code, 'VALIDATION_ERROR');
      assert.deepEqual(server(), beforeJunk, 'nothing changed');
      const move = await command(w, 'move', { from: 'e2', to: 'e4' });
      assert.equal(move.type, 'move:ok', JSON.stringify(move.body));
      await statesSettle([w, b], server, (s) => s.moves.length === 1);
    });
  });
});
