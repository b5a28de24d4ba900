import { getMessageBytes, Protocol } from '@colyseus/core';
import { WebSocketTransport, type TransportOptions } from '@colyseus/ws-transport';
import { unpack } from 'msgpackr';
import type { WebSocket, WebSocketServer } from 'ws';
import type { ErrorBody } from './messages.ts';

/**
 * Frames a client may send to our rooms, judged before Colyseus sees them. Colyseus decodes a
 * frame inside a try that logs the exception with its stack at error level (and its schema
 * decoder prints a console error for a bad UTF-8 byte): one junk frame, one stack trace, from
 * anyone (the lobby needs no account). Here a malformed frame is answered `error
 * VALIDATION_ERROR` and dropped, counted, and logged at debug.
 *
 * Our rooms speak only these: the join acknowledgement, leave, ping, and `room.send(type,
 * payload?)` with a string type and a MessagePack payload (ROOM_DATA). Requests, raw bytes and
 * inputs are not served.
 */
const BARE = new Set<number>([Protocol.JOIN_ROOM, Protocol.LEAVE_ROOM, Protocol.PING]);
const MAX_TYPE_BYTES = 64;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What is wrong with a client frame, or undefined when Colyseus may have it. */
export function frameProblem(frame: Uint8Array): string | undefined {
  if (frame.length === 0) return 'empty frame';
  const code = frame[0];
  if (BARE.has(code)) return frame.length === 1 ? undefined : 'unexpected bytes after the protocol code';
  if (code !== Protocol.ROOM_DATA) return `unsupported protocol code ${code}`;
  const type = readTypeName(frame);
  if (typeof type === 'string') return type;
  if (type.end < frame.length) {
    try {
      // A second decode of a few bytes (Colyseus decodes again): about a microsecond a message.
      unpack(frame.subarray(type.end));
    } catch {
      return 'the payload is not MessagePack';
    }
  }
  return undefined;
}

/** The message type of a ROOM_DATA frame (a MessagePack string, as the SDK writes it): where it ends, or the problem. */
function readTypeName(frame: Uint8Array): { end: number } | string {
  const prefix = frame[1];
  let length: number;
  let start: number;
  if (prefix > 0xa0 && prefix < 0xc0) [length, start] = [prefix & 0x1f, 2];
  else if (prefix === 0xd9 && frame.length > 2) [length, start] = [frame[2], 3];
  else return 'the message type must be a non-empty string';
  const end = start + length;
  if (length > MAX_TYPE_BYTES || end > frame.length) return 'the message type is cut short or too long';
  try {
    utf8.decode(frame.subarray(start, end));
  } catch {
    return 'the message type is not UTF-8';
  }
  return { end };
}

export type FrameGuardOptions = {
  /** Told of each refusal (what kind), for metrics and a debug log line. */
  refused: (kind: 'malformed_frame' | 'socket_error', detail: string) => void;
  /** A socket that sends this many malformed frames is closed: junk does not count against Colyseus's flood limit. */
  maxMalformed?: number;
};

/** Colyseus's WebSocket transport with every client socket behind the frame guard. */
export class GuardedWebSocketTransport extends WebSocketTransport {
  constructor(options: TransportOptions, guard: FrameGuardOptions) {
    super(options);
    guardFrames(this.wss, guard);
  }
}

/**
 * Puts every client socket of `wss` behind frameProblem, and takes over its error listener:
 * a protocol error of the socket (an oversized or invalid frame) is the client's, not a fault
 * of ours, so it is counted, not logged with a stack. Call before the server accepts sockets.
 */
function guardFrames(wss: WebSocketServer, o: FrameGuardOptions): void {
  const maxMalformed = o.maxMalformed ?? 20;
  wss.on('connection', (ws: WebSocket) => {
    // Colyseus's listener (added as the socket connected, just before this one) logs the stack.
    ws.removeAllListeners('error');
    ws.on('error', (err) => o.refused('socket_error', err.message));
    let malformed = 0;
    const emit = ws.emit;
    ws.emit = function guarded(this: WebSocket, event: string | symbol, ...args: unknown[]): boolean {
      if (event === 'message') {
        const problem = frameProblem(asBytes(args[0]));
        if (problem) {
          o.refused('malformed_frame', problem);
          if (++malformed > maxMalformed) ws.close(1008, 'too many malformed frames');
          else ws.send(getMessageBytes.raw(Protocol.ROOM_DATA, 'error', malformedFrame(problem)));
          return false;
        }
      }
      return emit.call(this, event, ...args);
    } as WebSocket['emit'];
  });
}

const malformedFrame = (problem: string): ErrorBody => ({ code: 'VALIDATION_ERROR', message: `Malformed frame: ${problem}` });

function asBytes(data: unknown): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (Array.isArray(data)) return Buffer.concat(data as Buffer[]);
  return new Uint8Array(0);
}
