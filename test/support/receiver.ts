import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { headers: http.IncomingHttpHeaders; body: string; json: any; at: number };

/**
 * A receiver that answers, but slowly: one byte every `everyMs`, of its status line and headers
 * (`part: 'headers'`) or of a body after prompt headers (`part: 'body'`), so the socket is never
 * idle for long. The far side a sender must not wait on for ever.
 */
export type Drip = { drip: { everyMs: number; part: 'headers' | 'body'; status?: number } };

/**
 * A real HTTP receiver for webhooks: keeps every request, answers as `respond` says (200 by
 * default), and lets a test wait for the requests it expects.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  respond: (r: Received, n: number) => { status: number; headers?: Record<string, string> } | 'hang' | Drip = () => ({ status: 200 });
  /** The most requests of one webhook-id this receiver held open at once. */
  readonly peakOpen = new Map<string, number>();
  private open = new Map<string, number>();
  private server = http.createServer((req, res) => {
    const id = String(req.headers['webhook-id']);
    this.open.set(id, (this.open.get(id) ?? 0) + 1);
    this.peakOpen.set(id, Math.max(this.peakOpen.get(id) ?? 0, this.open.get(id)!));
    res.once('close', () => this.open.set(id, this.open.get(id)! - 1));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const r: Received = { headers: req.headers, body, json: safeJson(body), at: Date.now() };
      this.received.push(r);
      const answer = this.respond(r, this.received.length);
      for (const w of this.waiters.splice(0)) w();
      if (answer === 'hang') return; // never answers: the sender's timeout decides
      if ('drip' in answer) return drip(res, answer.drip);
      res.writeHead(answer.status, answer.headers).end();
    });
  });
  private waiters: Array<() => void> = [];

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Resolves once `count` requests matching `match` have come (in arrival order). */
  async waitFor(count: number, match: (r: Received) => boolean = () => true, timeoutMs = 10_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.filter(match);
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`${found.length} of ${count} webhook requests within ${timeoutMs} ms: ${JSON.stringify(this.received.map((r) => r.json?.type))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
  }
}

function drip(res: http.ServerResponse, o: Drip['drip']): void {
  const status = o.status ?? 200;
  const body = 'x'.repeat(1000);
  let bytes: Buffer;
  if (o.part === 'headers') {
    bytes = Buffer.from(`HTTP/1.1 ${status} OK\r\nContent-Length: 0\r\nX-Padding: ${'p'.repeat(1000)}\r\n\r\n`);
  } else {
    res.writeHead(status, { 'content-length': body.length }).flushHeaders();
    bytes = Buffer.from(body);
  }
  const socket = res.socket!;
  let i = 0;
  const timer = setInterval(() => {
    if (i >= bytes.length || socket.destroyed) return clearInterval(timer);
    socket.write(bytes.subarray(i, ++i));
  }, o.everyMs);
  socket.once('close', () => clearInterval(timer));
}

function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A fresh receiver for each test of the enclosing `describe` (mocha hooks): read `receiver` and
 * `url` inside the tests.
 */
export function receiverPerTest(): { readonly receiver: WebhookReceiver; readonly url: string } {
  const current = { receiver: undefined as unknown as WebhookReceiver, url: '' };
  beforeEach(async () => {
    current.receiver = new WebhookReceiver();
    current.url = await current.receiver.start();
  });
  afterEach(() => current.receiver.stop());
  return current;
}
