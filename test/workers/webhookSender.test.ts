import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import os from 'node:os';
import ipaddr from 'ipaddr.js';
import { targetProblem } from '../../src/services/webhooks.ts';
import { createSender, retryAfterOf, signerFor } from '../../src/workers/webhookSender.ts';
import { Webhook } from 'standardwebhooks';
import { systemClock, withTimeout } from '../../src/time.ts';
import { ManualClock } from '../helpers/clock.ts';
import { freePort } from '../../src/util/net.ts';
import { WebhookReceiver, type Drip } from '../support/receiver.ts';

/**
 * A name the registration check cannot see through (no `localhost`, no literal address) that
 * resolves to a private address, so only the connect-time check stands between it and us: the
 * machine's own name, where it resolves so (as in containers and most CI runners).
 */
async function privateName(): Promise<string | undefined> {
  const name = os.hostname();
  const found = await lookup(name).catch(() => undefined);
  return found && ipaddr.process(found.address).range() !== 'unicast' ? name : undefined;
}

describe('webhook targets: nothing a user registers reaches a private address', () => {
  it('refuses non-public targets at registration unless WEBHOOKS_ALLOW_PRIVATE', () => {
    const refused = [
      'http://example.com/hook', // https only
      'https://localhost/hook',
      'https://api.localhost/hook',
      'https://127.0.0.1/hook',
      'https://10.1.2.3/hook',
      'https://192.168.0.10/hook',
      'https://172.16.5.4/hook',
      'https://169.254.169.254/latest/meta-data', // cloud metadata, link-local
      'https://100.64.0.1/hook', // CGNAT
      'https://0.0.0.0/hook',
      'https://[::1]/hook',
      'https://[fc00::1]/hook',
      'https://[fe80::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://user:pw@example.com/hook',
      // A trailing dot names the same host (the DNS root) and must not slip past the name check.
      'https://localhost./hook',
      'https://foo.localhost./hook',
      'https://metadata.google.internal./computeMetadata/v1/',
      'https://printer.local../hook',
      'not a url',
    ];
    for (const url of refused) assert.equal(typeof targetProblem(url, false), 'string', url);
    for (const url of ['https://example.com/hook', 'https://8.8.8.8/x', 'https://[2001:4860:4860::8888]/x']) assert.equal(targetProblem(url, false), undefined, url);
    assert.equal(targetProblem('http://127.0.0.1:9999/hook', true), undefined, 'allowed in development and tests');
  });

  it('refuses at connect time a name that resolves to a private address, and sends nothing there', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    const port = new URL(url).port;
    const send = createSender({ allowPrivate: false, timeoutMs: 2000 });
    const name = await privateName();
    try {
      for (const target of [...(name ? [`https://${name}:${port}/hook`] : []), `https://localhost:${port}/hook`, `https://127.0.0.1:${port}/hook`, `https://[::1]:${port}/hook`, `http://localhost:${port}/hook`]) {
        const result = await send({ url: target, id: 'msg_1', body: '{}', secret: 'a-secret-of-16-chars', at: new Date() });
        assert.equal(result.statusCode, null, target);
        assert.ok(result.error, target);
      }
      assert.equal(receiver.received.length, 0, 'no request reached the loopback receiver');
    } finally {
      await receiver.stop();
    }
  });

  it('signs as the Standard Webhooks verifier expects, for whsec_ and plain secrets', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    const send = createSender({ allowPrivate: true });
    try {
      for (const secret of ['whsec_' + Buffer.from('sixteen-bytes-key!').toString('base64'), 'a plain secret of 16+ chars']) {
        const at = new Date();
        const res = await send({ url, id: 'msg_abc', body: '{"type":"webhook.test"}', secret, at });
        assert.equal(res.statusCode, 200);
        const got = receiver.received.at(-1)!;
        const verifier = secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
        assert.deepEqual(verifier.verify(got.body, got.headers as Record<string, string>), { type: 'webhook.test' });
        assert.equal(got.headers['webhook-signature'], signerFor(secret).sign('msg_abc', at, got.body));
      }
    } finally {
      await receiver.stop();
    }
  });

  it('times out a receiver that never answers, and follows no redirect', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    const send = createSender({ allowPrivate: true, timeoutMs: 300 });
    try {
      receiver.respond = () => 'hang';
      const hung = await send({ url, id: 'msg_1', body: '{}', secret: 'a-secret-of-16-chars', at: new Date() });
      assert.deepEqual([hung.statusCode, hung.error], [null, 'timed out']);
      receiver.respond = () => ({ status: 302, headers: { location: 'http://169.254.169.254/' } });
      const moved = await send({ url, id: 'msg_2', body: '{}', secret: 'a-secret-of-16-chars', at: new Date() });
      assert.equal(moved.statusCode, 302, 'a redirect is an answer like any non-2xx');
      assert.equal(receiver.received.length, 2);
    } finally {
      await receiver.stop();
    }
  });

  it('reads Retry-After in seconds or as a date', () => {
    assert.equal(retryAfterOf('120', 0), 120_000);
    assert.equal(retryAfterOf(new Date(60_000).toUTCString(), 0), 60_000);
    assert.equal(retryAfterOf('soon', 0), null);
    assert.equal(retryAfterOf(undefined, 0), null);
  });
});

describe('webhook attempts: a hard deadline, and errors that tell the owner nothing internal', () => {
  const SECRET = 'a-secret-of-16-chars';
  let receiver: WebhookReceiver;
  let url: string;
  beforeEach(async () => {
    receiver = new WebhookReceiver();
    url = await receiver.start();
  });
  afterEach(() => receiver.stop());

  /** One attempt against a dripping receiver, the deadline on a manual clock: what it came to once the clock reached it. */
  async function dripped(part: Drip['drip']['part']) {
    const clock = new ManualClock(Date.now());
    const send = createSender({ allowPrivate: true, timeoutMs: 1000, clock });
    receiver.respond = () => ({ drip: { everyMs: 50, part } });
    let settled = false;
    const attempt = send({ url, id: 'msg_1', body: '{}', secret: SECRET, at: new Date(clock.now()) }).finally(() => (settled = true));
    await receiver.waitFor(1);
    await clock.advance(999);
    await new Promise((r) => setTimeout(r, 200)); // bytes keep coming in real time meanwhile
    assert.equal(settled, false, 'not before the deadline');
    await clock.advance(1);
    return withTimeout(attempt, 2000, () => 'still waiting after the deadline' as const, systemClock);
  }

  it('fails an attempt at its deadline when the receiver drips its status line and headers', async () => {
    const result = await dripped('headers');
    assert.notEqual(result, 'still waiting after the deadline');
    assert.deepEqual(result, { statusCode: null, error: 'timed out', detail: 'no complete answer within 1000 ms', retryAfterMs: null, durationMs: 1000 });
  });

  it('fails an attempt at its deadline when a prompt 200 drips its body', async () => {
    const result = await dripped('body');
    assert.notEqual(result, 'still waiting after the deadline');
    assert.deepEqual(result, { statusCode: null, error: 'timed out', detail: 'no complete answer within 1000 ms', retryAfterMs: null, durationMs: 1000 });
  });

  it('tells the owner "target address not allowed" for a private target, naming no internal name or address', async () => {
    const port = new URL(url).port;
    const send = createSender({ allowPrivate: false, timeoutMs: 2000 });
    const name = await privateName();
    if (!name) console.warn(`      (${os.hostname()} does not resolve to a private address here: the DNS-time refusal is not exercised)`);
    for (const target of [...(name ? [`https://${name}:${port}/hook`] : []), `https://localhost:${port}/hook`, `https://localhost.:${port}/hook`, `https://127.0.0.1:${port}/hook`, `https://[::1]:${port}/hook`]) {
      const result = await send({ url: target, id: 'msg_1', body: '{}', secret: SECRET, at: new Date() });
      assert.equal(result.error, 'target address not allowed', target);
    }
    assert.equal(receiver.received.length, 0);
  });

  it('tells the owner "connection refused" for a closed port, the detail kept for the log', async () => {
    const send = createSender({ allowPrivate: true, timeoutMs: 2000 });
    const result = await send({ url: `http://127.0.0.1:${await freePort()}/hook`, id: 'msg_1', body: '{}', secret: SECRET, at: new Date() });
    assert.equal(result.error, 'connection refused');
    assert.match(result.detail ?? '', /ECONNREFUSED 127\.0\.0\.1/);
  });
});
