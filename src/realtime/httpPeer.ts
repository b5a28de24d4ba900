import type { ServerResponse } from 'node:http';
import { AppError, isAppError } from '../errors.ts';
import { formatError, formatServerMessage, type ServerMessage, type Wire } from './messages.ts';
import type { Connection, Ending } from './subscriber.ts';

export const NDJSON = 'application/x-ndjson';

/**
 * Whether an Accept header asks for NDJSON by name (`*\/*` does not: a client that did not ask
 * for the HTTP form of a stream keeps the answer it had before).
 */
export function acceptsNdjson(accept: string | undefined): boolean {
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (type !== NDJSON) continue;
    const q = params.find((p) => p.startsWith('q='));
    if (!q || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

export type HttpPeerOptions = {
  /** Unsent bytes the response may hold before it is cut off. */
  maxBufferedBytes: number;
  now: () => number;
  /** Answers with the error envelope (before the stream is live). */
  refuseWith: (error: unknown) => void;
  /**
   * Whether a refusal after the 200 is told in a last `error` line (this service's streams, the
   * default), or the body just ends (a hosted surface's stream, whose lines have no error type:
   * Lichess's, which lichess.org ends so when it restarts).
   */
  errorLine?: boolean;
};

/**
 * One client of an HTTP event stream (DESIGN 2.12): the stream's messages, one JSON object per
 * line, over a chunked 200 that starts with the first of them. Until then a refusal is an
 * ordinary HTTP error (`refuse`: the error envelope); after it, the stream can only end. Like a
 * socket's Peer, it gives up on a slow reader instead of buffering without end.
 */
export class HttpPeer implements Connection {
  /** The 200 and its headers are sent: the stream is live. */
  live = false;
  private readonly closing: Array<() => void> = [];

  constructor(
    readonly res: ServerResponse,
    private readonly o: HttpPeerOptions,
  ) {
    res.once('close', () => {
      for (const f of this.closing.splice(0)) f();
    });
  }

  get open(): boolean {
    return !this.res.destroyed && !this.res.writableEnded;
  }

  get buffered(): number {
    return this.res.writableLength;
  }

  onClose(f: () => void): void {
    if (this.res.closed) f();
    else this.closing.push(f);
  }

  /** Sends the 200: from here on the stream is live, and a refusal is a line. */
  begin(): void {
    if (this.live || !this.open) return;
    this.live = true;
    this.res.writeHead(200, {
      'Content-Type': `${NDJSON}; charset=utf-8`,
      'Cache-Control': 'no-store',
      // A proxy that buffers answers (nginx) would hold the lines back.
      'X-Accel-Buffering': 'no',
    });
    this.res.flushHeaders();
  }

  /** One message, one line. A reader that let `maxBufferedBytes` pile up is cut off instead. */
  send(message: ServerMessage | Wire<ServerMessage>): void {
    this.begin();
    this.write(`${typeof message === 'string' ? message : formatServerMessage(message)}\n`);
  }

  /** One line of another surface's own (a Lichess stream's object), as it is. */
  sendLine(text: string): void {
    this.begin();
    this.write(`${text}\n`);
  }

  /** The keep-alive: an empty line, once the stream is live. */
  keepAlive(): void {
    if (this.live) this.write('\n');
  }

  /** There is no close code: the body ends after the game's end, and with an `error` line (or before it, the envelope) otherwise. */
  end(ending: Ending): void {
    if (ending.kind === 'over') return this.finish();
    this.refuse(ending.error, ending.kind === 'refused' ? ending.channel : undefined);
  }

  /**
   * A refusal: the error envelope before the stream is live (any error: the HTTP side tells
   * what it is); after, an `error` message as the last line unless `errorLine` is false (with `channel` on the user channel's
   * stream, as the realtime socket sends it; SERVICE_UNAVAILABLE for an error that is no AppError).
   */
  refuse(error: unknown, channel?: string): void {
    if (!this.open) return;
    if (!this.live) return this.o.refuseWith(error);
    if (this.o.errorLine !== false) {
      const e = isAppError(error) ? error : new AppError('SERVICE_UNAVAILABLE', 'The stream failed; connect again');
      this.send(formatError(e, this.o.now(), channel));
    }
    this.finish();
  }

  /** Ends the stream (its last chunk). */
  private finish(): void {
    if (!this.open) return;
    this.begin();
    this.res.end();
  }

  private write(text: string): void {
    if (!this.open) return;
    // Cut, not ended: a reader this far behind would never read an ending either. The chunked
    // body stops without its last chunk, which tells the client the stream was broken off.
    if (this.buffered > this.o.maxBufferedBytes) return void this.res.destroy();
    this.res.write(text);
  }
}
