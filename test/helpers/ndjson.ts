import http from 'node:http';
import { newIp } from './http.ts';
import { testService } from './service.ts';

export type NdMessage = Record<string, any>;

/**
 * A plain HTTP client of an NDJSON stream (node:http, as a script or a bot would read it): each
 * line is parsed and kept in order; an empty line (the keep-alive) is counted, not kept. `next`
 * takes the messages one at a time, waiting when none is there. A stream refused before it
 * started (not 200) has its envelope in `body`.
 */
export class NdjsonClient {
  private readonly inbox: NdMessage[] = [];
  private waiter: { resolve: (m: NdMessage) => void; reject: (e: Error) => void } | undefined;
  private partial = '';
  /** Every message received, in order, also those taken by `next`. */
  readonly seen: NdMessage[] = [];
  /** Keep-alive lines received. */
  keepAlives = 0;
  /** `complete`: the body ended with its last chunk; `aborted`: the connection was cut first. */
  readonly ended: Promise<'complete' | 'aborted'>;
  private onLine?: () => void;

  private constructor(
    readonly req: http.ClientRequest,
    readonly res: http.IncomingMessage,
  ) {
    res.setEncoding('utf8');
    this.ended = new Promise((resolve) => {
      let complete = false;
      res.on('end', () => (complete = true));
      res.on('close', () => {
        resolve(complete ? 'complete' : 'aborted');
        this.waiter?.reject(new Error(`the stream ended (${complete ? 'complete' : 'aborted'}); seen ${JSON.stringify(this.seen.slice(-5))}`));
        this.waiter = undefined;
      });
      res.on('error', () => {});
    });
    if (res.statusCode !== 200) return;
    res.on('data', (chunk: string) => {
      const lines = (this.partial + chunk).split('\n');
      this.partial = lines.pop()!;
      for (const line of lines) {
        if (line === '') this.keepAlives++;
        else this.push(JSON.parse(line));
        this.onLine?.();
      }
    });
  }

  /** Opens `path` on the test service (or a full http:// URL), from a client address of its own as `api` does. */
  static async open(path: string, headers: Record<string, string> = {}): Promise<NdjsonClient> {
    const local = !path.startsWith('http');
    const url = local ? `${(await testService()).service.url}${path}` : path;
    const req = http.get(url, { headers: { accept: 'application/x-ndjson', ...(local ? { 'x-forwarded-for': newIp() } : {}), ...headers } });
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      req.once('response', resolve);
      req.once('error', reject);
    });
    const client = new NdjsonClient(req, res);
    if (res.statusCode !== 200) client.body = JSON.parse(await new Promise<string>((resolve) => {
      let text = '';
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(text));
    }));
    return client;
  }

  /** The error envelope of a refused stream. */
  body: any;

  get status(): number {
    return this.res.statusCode ?? 0;
  }

  private push(m: NdMessage): void {
    this.seen.push(m);
    if (this.waiter) {
      const { resolve } = this.waiter;
      this.waiter = undefined;
      resolve(m);
    } else this.inbox.push(m);
  }

  /** The next message, which must be of `type` when one is named. */
  async next(type?: string, timeoutMs = 5000): Promise<NdMessage> {
    const m =
      this.inbox.shift() ??
      (await new Promise<NdMessage>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${type ?? 'message'} within ${timeoutMs} ms; seen ${JSON.stringify(this.seen.slice(-5))}`)), timeoutMs);
        this.waiter = {
          resolve: (m) => (clearTimeout(timer), resolve(m)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        };
      }));
    if (type !== undefined && m.type !== type) throw new Error(`expected ${type}, got ${JSON.stringify(m)}`);
    return m;
  }

  /** Waits until a message of `type` arrives, dropping the ones before it. */
  async until(type: string, timeoutMs = 5000): Promise<NdMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const m = await this.next(undefined, Math.max(1, deadline - Date.now()));
      if (m.type === type) return m;
    }
  }

  /** Resolves once `n` keep-alive lines have come in all. */
  keptAlive(n: number, timeoutMs = 5000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.keepAlives} keep-alives, not ${n}`)), timeoutMs);
      const check = () => {
        if (this.keepAlives < n) return;
        clearTimeout(timer);
        this.onLine = undefined;
        resolve();
      };
      this.onLine = check;
      check();
    });
  }

  /** Messages received and not yet taken. */
  get pending(): NdMessage[] {
    return [...this.inbox];
  }

  /** Hangs up (the client's end of the connection closes). */
  close(): void {
    this.req.destroy();
  }
}
