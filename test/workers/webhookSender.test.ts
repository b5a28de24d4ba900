import assert from 'node:assert/strict';
import { targetProblem } from '../../src/services/webhooks.ts';
import { createSender, retryAfterOf, signerFor } from '../../src/workers/webhookSender.ts';
import { Webhook } from 'standardwebhooks';
import { WebhookReceiver } from '../helpers/receiver.ts';

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
    try {
      for (const target of [`https://localhost:${port}/hook`, `https://127.0.0.1:${port}/hook`, `https://[::1]:${port}/hook`, `http://localhost:${port}/hook`]) {
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
      assert.deepEqual([hung.statusCode, /no answer within 300 ms/.test(hung.error ?? '')], [null, true]);
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
