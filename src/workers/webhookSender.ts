import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { Webhook } from 'standardwebhooks';
import { targetProblem } from '../services/webhooks.ts';
import { systemClock, type Clock } from '../time.ts';

/**
 * Why an attempt got no answer, as its endpoint's owner sees it. Deliberately coarse: the
 * underlying error names what our resolver answered and which address we tried (a name inside
 * our network, its private address), which is no business of whoever registered the URL. The
 * detail goes to our log only.
 */
export const SEND_ERRORS = [
  'target address not allowed',
  'host not found',
  'connection refused',
  'connection reset',
  'timed out',
  'TLS error',
  'request failed',
] as const;
export type SendError = (typeof SEND_ERRORS)[number];

/** What one attempt came to: the receiver's status, or why there was none (`detail`: for the log only). */
export type SendResult = { statusCode: number | null; error: SendError | null; detail: string | null; retryAfterMs: number | null; durationMs: number };

export type Send = (o: { url: string; id: string; body: string; secret: string; at: Date }) => Promise<SendResult>;

/**
 * The Standard Webhooks signer for an endpoint's secret (DESIGN 2.7): a `whsec_` secret is the
 * base64 of the key, any other secret is the key's UTF-8 bytes.
 */
export function signerFor(secret: string): Webhook {
  return secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
}

/** The most one attempt may take, from sending to the last byte of the answer (DESIGN 2.7: 2xx within 10 s counts). */
export const SEND_TIMEOUT_MS = 10_000;
/** Answer bytes read at most: the status is what counts, and a longer body is not waited for. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs signed deliveries. Without WEBHOOKS_ALLOW_PRIVATE only https is sent, to no host that
 * names a non-public address, through agents that check the address each connection really
 * goes to (after DNS, so a name that resolves, or later re-resolves, to loopback, a private,
 * link-local, CGNAT or metadata address is refused). Redirects are not followed (node's http
 * never does): a 3xx is an answer like any non-2xx.
 *
 * Each attempt has a hard deadline on `clock`, `timeoutMs` from its start, covering the
 * connection, the status line, the headers and the body: a receiver that drips its answer a
 * byte at a time never lets a socket go idle, so an idle timeout alone would let it hold the
 * attempt (and the dispatcher's slot, and its claim) for as long as it likes.
 */
export function createSender(o: { allowPrivate: boolean; timeoutMs?: number; clock?: Clock }): Send {
  const timeoutMs = o.timeoutMs ?? SEND_TIMEOUT_MS;
  const clock = o.clock ?? systemClock;
  const agents = o.allowPrivate
    ? { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) }
    : { http: undefined, https: new RequestFilteringHttpsAgent({ keepAlive: true }) };

  return ({ url, id, body, secret, at }) => {
    const started = clock.now();
    const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: clock.now() - started });
    const refused = (detail: string) => Promise.resolve(done({ statusCode: null, error: 'target address not allowed', detail, retryAfterMs: null }));
    // The registration check again: a row may predate it, and it costs nothing before connecting.
    const problem = targetProblem(url, o.allowPrivate);
    if (problem) return refused(`url ${problem}`);
    const target = new URL(url);
    const isHttps = target.protocol === 'https:';
    const agent = isHttps ? agents.https : agents.http;
    if (!agent) return refused('only https targets are allowed');
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'chess-service-webhooks/1',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signerFor(secret).sign(id, at, body),
    };
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const finish = (r: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clock.clearTimeout(deadline);
        resolve(done(r));
      };
      const fail = (err: Error) => finish({ statusCode: null, error: sendErrorOf(err), detail: err.message.slice(0, 500), retryAfterMs: null });
      const request = (isHttps ? https : http).request(target, { method: 'POST', agent, headers }, (res) => {
        const answered = () =>
          finish({ statusCode: res.statusCode ?? null, error: null, detail: null, retryAfterMs: retryAfterOf(res.headers['retry-after'], clock.now()) });
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes <= MAX_ANSWER_BYTES) return;
          answered();
          request.destroy();
        });
        res.on('end', answered);
        res.on('error', fail);
      });
      const deadline = clock.setTimeout(() => request.destroy(new DeadlineError(timeoutMs)), timeoutMs);
      request.on('error', fail);
      request.end(body);
    });
  };
}

class DeadlineError extends Error {
  constructor(ms: number) {
    super(`no complete answer within ${ms} ms`);
  }
}

/** The owner's word for a failed attempt (SEND_ERRORS). */
function sendErrorOf(err: Error): SendError {
  if (err instanceof DeadlineError) return 'timed out';
  // request-filtering-agent's refusal carries no code, only its message.
  if (/ is not allowed/.test(err.message)) return 'target address not allowed';
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA') return 'host not found';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection reset';
  if (code === 'ETIMEDOUT') return 'timed out';
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || /CERT|SSL|TLS/.test(code)) return 'TLS error';
  return 'request failed';
}

/** `Retry-After` in seconds or as an HTTP date, as milliseconds from now. */
export function retryAfterOf(header: string | undefined, now: number): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
