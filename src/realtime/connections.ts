import type { ServerResponse } from 'node:http';
import type { WebSocket } from 'ws';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Clock, TimerHandle } from '../time.ts';
import { HttpPeer } from './httpPeer.ts';
import { CLOSE } from './messages.ts';
import { Peer, type PeerLimits } from './peer.ts';

export type ConnectionTimers = {
  /** A socket that does not answer a ping within this long is dropped. */
  heartbeatMs: number;
  /** How often every HTTP stream gets its keep-alive newline. */
  keepAliveMs: number;
};

/**
 * This node's sockets and HTTP streams: one heartbeat round for every socket and one keep-alive
 * round for every HTTP stream, each on one timer of the service's clock (not a timer per
 * connection), the count the metrics read, and the shutdown that ends them all.
 */
export class Connections {
  private readonly sockets = new Set<Peer>();
  private readonly streams = new Set<HttpPeer>();
  private readonly stopRounds: Array<() => void>;

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly limits: PeerLimits,
    timers: ConnectionTimers,
  ) {
    this.stopRounds = [
      every(clock, timers.heartbeatMs, () => {
        for (const p of this.sockets) p.beat();
      }),
      every(clock, timers.keepAliveMs, () => {
        for (const p of this.streams) p.keepAlive();
      }),
    ];
  }

  /** A socket that completed its handshake. */
  socket(ws: WebSocket): Peer {
    const peer = new Peer(ws, this.clock, this.limits);
    this.sockets.add(peer);
    ws.on('close', () => this.sockets.delete(peer));
    // A protocol error of the client (a frame over 4 KB, bad UTF-8): ws closes the socket; nothing to log.
    ws.on('error', (err) => this.log.debug({ err: err.message }, 'socket error'));
    return peer;
  }

  /** An HTTP stream; `refuseWith` answers with the error envelope until it is live (`errorLine`: HttpPeerOptions). */
  stream(res: ServerResponse, refuseWith: (error: unknown) => void, errorLine = true): HttpPeer {
    const peer = new HttpPeer(res, { maxBufferedBytes: this.limits.maxBufferedBytes, now: () => this.clock.now(), refuseWith, errorLine });
    this.streams.add(peer);
    peer.onClose(() => this.streams.delete(peer));
    return peer;
  }

  /** Open sockets and HTTP streams (not those closing). */
  get open(): number {
    let n = 0;
    for (const p of this.sockets) if (p.open) n++;
    for (const p of this.streams) if (p.open) n++;
    return n;
  }

  /** Closes every socket with 1012 and ends every HTTP stream (the service restarts: connect again). */
  async close(): Promise<void> {
    for (const stop of this.stopRounds) stop();
    const closed = [...this.sockets].map((p) => new Promise<void>((resolve) => (p.onClose(resolve), p.close(CLOSE.RESTART, 'service restarting'))));
    // An HTTP stream has no close code: its last line says the service restarts (a hosted
    // surface's stream, whose lines have no error, just ends).
    const restarting = new AppError('SERVICE_UNAVAILABLE', 'The service is restarting: connect again', undefined, { retryAfter: 1 });
    for (const p of this.streams) closed.push(new Promise<void>((resolve) => (p.onClose(resolve), p.refuse(restarting))));
    // Node's timer, not the clock: a bound on a real shutdown, which must end however tests drive time.
    await Promise.race([Promise.all(closed), new Promise((r) => setTimeout(r, 2000))]);
    for (const p of this.sockets) p.ws.terminate();
    for (const p of this.streams) p.res.destroy();
  }
}

/** Runs `round` now and every `ms` after, on the clock; returns the way to stop. */
function every(clock: Clock, ms: number, round: () => void): () => void {
  let timer: TimerHandle | undefined;
  const run = () => {
    round();
    timer = clock.setTimeout(run, ms);
  };
  run();
  return () => clock.clearTimeout(timer);
}
