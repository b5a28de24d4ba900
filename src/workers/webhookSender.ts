import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { Webhook } from 'standardwebhooks';

/** What one attempt came to: the receiver's status, or why there was none. */
export type SendResult = { statusCode: number | null; error: string | null; retryAfterMs: number | null; durationMs: number };

export type Send = (o: { url: string; id: string; body: string; secret: string; at: Date }) => Promise<SendResult>;

/**
 * The Standard Webhooks signer for an endpoint's secret (DESIGN 2.7): a `whsec_` secret is the
 * base64 of the key, any other secret is the key's UTF-8 bytes.
 */
export function signerFor(secret: string): Webhook {
  return secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
}

/** The most a response may hold us (DESIGN 2.7: 2xx within 10 s counts). */
export const SEND_TIMEOUT_MS = 10_000;

/**
 * POSTs signed deliveries. Without WEBHOOKS_ALLOW_PRIVATE only https is sent, through agents
 * that check the address each connection really goes to (after DNS, so a name that resolves, or
 * later re-resolves, to loopback, a private, link-local, CGNAT or metadata address is refused).
 * Redirects are not followed (node's http never does): a 3xx is an answer like any non-2xx.
 */
export function createSender(o: { allowPrivate: boolean; timeoutMs?: number; now?: () => number }): Send {
  const timeoutMs = o.timeoutMs ?? SEND_TIMEOUT_MS;
  const now = o.now ?? Date.now;
  const agents = o.allowPrivate
    ? { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) }
    : { http: undefined, https: new RequestFilteringHttpsAgent({ keepAlive: true }) };

  return ({ url, id, body, secret, at }) => {
    const started = now();
    const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: now() - started });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve(done({ statusCode: null, error: 'invalid url', retryAfterMs: null }));
    }
    const isHttps = target.protocol === 'https:';
    const agent = isHttps ? agents.https : agents.http;
    if (!agent) return Promise.resolve(done({ statusCode: null, error: 'only https targets are allowed', retryAfterMs: null }));
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'chess-service-webhooks/1',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signerFor(secret).sign(id, at, body),
    };
    return new Promise<SendResult>((resolve) => {
      const request = (isHttps ? https : http).request(target, { method: 'POST', agent, headers, timeout: timeoutMs }, (res) => {
        res.resume(); // the body does not matter; let the socket be reused
        resolve(done({ statusCode: res.statusCode ?? null, error: null, retryAfterMs: retryAfterOf(res.headers['retry-after'], now()) }));
      });
      request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      request.on('error', (err) => resolve(done({ statusCode: null, error: err.message.slice(0, 200), retryAfterMs: null })));
      request.end(body);
    });
  };
}

/** `Retry-After` in seconds or as an HTTP date, as milliseconds from now. */
export function retryAfterOf(header: string | undefined, now: number): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
