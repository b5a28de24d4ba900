import type { WebSocket } from 'ws';
import type { AuthUser } from '../auth/scopes.ts';
import { AppError, isAppError } from '../errors.ts';
import type { Failure, Result } from '../result.ts';
import type { Clock } from '../time.ts';
import { CLOSE, errorMessage, formatError, formatServerMessage, parseClientMessage, type ClientMessage, type ErrorMessage, type ServerMessage, type Wire } from './messages.ts';
import type { Connection, Ending } from './subscriber.ts';

export type PeerLimits = {
  /** Unsent bytes a socket may hold before it is closed (1013). */
  maxBufferedBytes: number;
  /** Messages a client may send at once, and per second after that (a token bucket). */
  burst: number;
  perSecond: number;
  /** Messages over the limit (or malformed) after which the socket is closed (1008). */
  maxRefused: number;
};

export const DEFAULT_PEER_LIMITS: PeerLimits = { maxBufferedBytes: 1 << 20, burst: 60, perSecond: 10, maxRefused: 100 };

/** A client frame that is neither over the budget nor a `ping` (answered at once): parsed, or why not. */
export type Received = Result<Exclude<ClientMessage, { type: 'ping' }>, Omit<Failure, 'code'>>;

/**
 * One client socket of the stream or the realtime channel: sends that give up on a slow reader
 * instead of buffering without end, a budget for what the client sends, and liveness for the
 * heartbeat. As a session's subscriber it carries the game stream, and says how the session
 * ended with the close codes of docs/protocol.md; what the socket says is decided elsewhere.
 */
export class Peer implements Connection {
  /** Answered the last heartbeat ping. */
  alive = true;
  private tokens: number;
  private refilledAt: number;
  private refused = 0;

  constructor(
    readonly ws: WebSocket,
    private readonly clock: Clock,
    private readonly limits: PeerLimits,
  ) {
    this.tokens = limits.burst;
    this.refilledAt = clock.now();
    ws.on('pong', () => (this.alive = true));
  }

  get open(): boolean {
    return this.ws.readyState === this.ws.OPEN;
  }

  get buffered(): number {
    return this.ws.bufferedAmount;
  }

  /**
   * The one way a message goes out: one of ours, or a relayed one as its JSON text. A reader that
   * let `maxBufferedBytes` pile up is closed (1013) instead.
   */
  send(message: ServerMessage | Wire<ServerMessage>): void {
    const text = typeof message === 'string' ? message : formatServerMessage(message);
    if (!this.open) return;
    if (this.buffered > this.limits.maxBufferedBytes) return this.close(CLOSE.TRY_AGAIN_LATER, 'reading too slowly');
    this.ws.send(text);
  }

  begin(): void {}

  /** The game stream's ending: `error` first when the client is told why, then the close code. */
  end(ending: Ending): void {
    switch (ending.kind) {
      case 'over':
        return this.close(CLOSE.NORMAL, 'game over');
      case 'refused':
        this.send(formatError(ending.error, this.clock.now(), ending.channel));
        return this.close(ending.code, ending.reason);
      case 'failed':
        this.send(errorMessage('SERVICE_UNAVAILABLE', 'The game could not be read; try again', {}, this.clock.now()));
        return this.close(CLOSE.INTERNAL, 'try again');
      case 'broken':
        return this.close(CLOSE.INTERNAL, 'reconnect with ?since');
    }
  }

  onClose(f: () => void): void {
    if (this.ws.readyState === this.ws.CLOSED) f();
    else this.ws.once('close', f);
  }

  /** Takes the client's frames: one over the budget is refused, a `ping` answered at once, any other handed to `handle`. */
  receive(handle: (message: Received) => void): void {
    this.ws.on('message', (data, isBinary) => {
      if (!this.spend()) return this.refuse(errorMessage('RATE_LIMIT_EXCEEDED', 'Too many messages', {}, this.clock.now()));
      const parsed = parseClientMessage(data, isBinary);
      if (parsed.ok && parsed.value.type === 'ping') return this.send({ type: 'pong', ...(parsed.value.id !== undefined ? { id: parsed.value.id } : {}), ts: this.clock.now() });
      handle(parsed as Received);
    });
  }

  /** A refused message (over the budget, malformed): too many of them close the socket (1008). */
  refuse(message: ErrorMessage): void {
    if (++this.refused > this.limits.maxRefused) return this.close(CLOSE.POLICY, 'too many refused messages');
    this.send(message);
  }

  close(code: number, reason = ''): void {
    if (this.ws.readyState === this.ws.CLOSED || this.ws.readyState === this.ws.CLOSING) return;
    this.ws.close(code, reason);
    // A reader that stopped reading may never complete the closing handshake. (Node's timer: the
    // far side is a real socket, whatever clock the service runs on.)
    const timer = setTimeout(() => this.ws.terminate(), 5000);
    timer.unref();
    this.ws.once('close', () => clearTimeout(timer));
  }

  /** The heartbeat: a socket that did not answer the previous ping is dropped. */
  beat(): void {
    if (!this.alive) return void this.ws.terminate();
    this.alive = false;
    this.ws.ping();
  }

  /** Counts one client message against the budget: false when over it. */
  private spend(): boolean {
    const now = this.clock.now();
    this.tokens = Math.min(this.limits.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.limits.perSecond);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/**
 * `authenticate` for a socket: it is told only that its token failed, not why (an HTTP stream is
 * answered with the reason, as REST is).
 */
export const socketAuthenticate =
  (authenticate: (token: string) => Promise<AuthUser>) =>
  async (token: string): Promise<AuthUser> => {
    try {
      return await authenticate(token);
    } catch (error) {
      if (isAppError(error) && error.code === 'UNAUTHORIZED') throw new AppError('UNAUTHORIZED', 'Invalid or expired access token');
      throw error;
    }
  };
