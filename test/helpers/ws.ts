import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { newIp } from './http.ts';
import { testService } from './service.ts';

export type WsMessage = Record<string, any>;

/** The `type`s of the messages `M` (any string while M is untyped). */
type TypeOf<M> = M extends { type: infer T extends string } ? T : string;
/** The messages of `M` whose type is `T` (all of them while M is untyped). */
type MessageOf<M, T> = M extends { type: infer U } ? (T extends U ? M : never) : M;

/**
 * A plain WebSocket client (the `ws` package, as a bot or a spectator page would use): every
 * message it receives is kept in order; `next` takes them one at a time, waiting when none is there.
 */
export class WsClient<M extends object = WsMessage> {
  private readonly inbox: M[] = [];
  private waiter: { match: (m: M) => boolean; resolve: (m: M) => void } | undefined;
  /** Every message received, in order, also those taken by `next`. */
  readonly seen: M[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as M;
      this.seen.push(m);
      if (this.waiter?.match(m)) {
        const { resolve } = this.waiter;
        this.waiter = undefined;
        resolve(m);
      } else this.inbox.push(m);
    });
    this.closed = new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: String(reason) })));
  }

  /**
   * Opens `path` on the test service (or a full ws:// URL). On the test service each socket comes
   * from a client address of its own unless `headers` name one, as `api` does: the whole suite's
   * sockets do not add up against the per-address socket cap. `M`: what the socket sends (the
   * server's declared union), so that `next('move')` is typed.
   */
  static async open<M extends object = WsMessage>(path: string, headers: Record<string, string> = {}): Promise<WsClient<M>> {
    const local = !path.startsWith('ws');
    const url = local ? `${(await testService()).service.url.replace('http', 'ws')}${path}` : path;
    const ws = new WebSocket(url, { headers: local ? { 'x-forwarded-for': newIp(), ...headers } : headers });
    const client = new WsClient<M>(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  /** The next message (matching `match`, skipping none before it: a skipped one fails the test). */
  next<T extends TypeOf<M>>(type?: T, timeoutMs = 5000): Promise<MessageOf<M, T>> {
    const match = (m: M): m is MessageOf<M, T> => type === undefined || (m as { type?: unknown }).type === type;
    const queued = this.inbox.shift();
    if (queued) {
      if (!match(queued)) return Promise.reject(new Error(`expected ${type}, got ${JSON.stringify(queued)}`));
      return Promise.resolve(queued);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type ?? 'message'} within ${timeoutMs} ms; seen ${JSON.stringify(this.seen.slice(-5))}`)), timeoutMs);
      this.waiter = {
        match: () => true,
        resolve: (m) => {
          clearTimeout(timer);
          if (match(m)) resolve(m);
          else reject(new Error(`expected ${type}, got ${JSON.stringify(m)}`));
        },
      };
    });
  }

  /** Waits until a message of `type` arrives, dropping the ones before it. */
  async until<T extends TypeOf<M>>(type: T, timeoutMs = 5000): Promise<MessageOf<M, T>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m: M = await this.next(undefined, Math.max(1, deadline - Date.now()));
      if ((m as { type?: unknown }).type === type) return m as MessageOf<M, T>;
    }
  }

  /** Messages received and not yet taken. */
  get pending(): M[] {
    return [...this.inbox];
  }

  send(message: object | string | Buffer): void {
    this.ws.send(typeof message === 'string' || Buffer.isBuffer(message) ? message : JSON.stringify(message));
  }

  close(): void {
    this.ws.close();
  }
}

/** A realtime socket subscribed to `user`'s own channel (`/v1/realtime`), once `subscribed` came. */
export async function subscribeUser(user: { id: string; accessToken: string }): Promise<WsClient> {
  const socket = await WsClient.open('/v1/realtime');
  socket.send({ type: 'subscribe', channel: `user:${user.id}`, token: user.accessToken });
  assert.equal((await socket.next('subscribed')).channel, `user:${user.id}`);
  return socket;
}
