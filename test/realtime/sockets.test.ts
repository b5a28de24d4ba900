import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventBus } from '../../src/events.ts';
import type { Realtime, RealtimeDeps } from '../../src/realtime/index.ts';
import type { ManualClock } from '../helpers/clock.ts';
import { until } from '../helpers/poll.ts';
import { standaloneRealtime } from '../helpers/realtimeNode.ts';
import { WsClient } from '../helpers/ws.ts';

/**
 * The sockets' hygiene on a realtime endpoint of its own (an HTTP server in this process, an
 * in-process event bus, a manual clock): heartbeats, slow readers, shutdown.
 */
describe('realtime sockets: heartbeat, back-pressure, shutdown', () => {
  let server: http.Server;
  let realtime: Realtime;
  let bus: EventBus;
  let clock: ManualClock;
  let base: string;

  async function start(o: Partial<RealtimeDeps> = {}) {
    ({ realtime, bus, clock } = standaloneRealtime(o));
    server = http.createServer();
    server.on('upgrade', (req, socket, head) => realtime.upgrade(req, socket, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  afterEach(async () => {
    await realtime?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('drops a socket that stops answering pings, and keeps one that answers', async () => {
    await start({ heartbeatMs: 30_000 });
    const [alive, dead] = [await WsClient.open(`${base}/realtime`), await WsClient.open(`${base}/realtime`)];
    // The dead client's machine vanished: its socket reads nothing, so no pong comes back.
    (dead.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    await clock.advance(30_000); // ping
    // The live client's pong travels. The answer to a first message comes after the ping on the
    // same stream, so the client has answered that ping by then; the answer to a second comes
    // after the server read that pong.
    for (let i = 0; i < 2; i++) {
      alive.send({ type: 'ping' });
      assert.equal((await alive.next()).type, 'pong');
    }
    await clock.advance(30_000); // no pong from the dead one: dropped
    await until('the dead socket is closed', () => realtime.stats().sockets === 1, { ms: 2000 });
    alive.send({ type: 'ping' });
    assert.equal((await alive.next()).type, 'pong');
  });

  it('closes a reader that lets unsent messages pile up (1013) instead of buffering for it', async () => {
    await start({ limits: { maxBufferedBytes: 64 * 1024 } });
    const slow = await WsClient.open(`${base}/realtime`);
    slow.send({ type: 'subscribe', channel: 'lobby' });
    await slow.next('subscribed');
    await slow.next('seeks');
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const big = JSON.stringify({ type: 'seek_added', seek: { id: 'x', note: 'x'.repeat(3000) }, ts: 1 });
    let published = 0;
    // Until the server gives up on the reader (the kernel's buffers take some megabytes first).
    while (realtime.stats().sockets > 0 && published < 40_000) {
      bus.publishRaw('lobby:seeks', big);
      if (++published % 100 === 0) await new Promise((r) => setImmediate(r));
    }
    assert.equal(realtime.stats().sockets, 0, `still open after ${published} messages`);
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    assert.equal((await slow.closed).code, 1013);
  });

  it('stops watching the credential of a subscription that was refused, ended or closed', async () => {
    const watched = new Set<object>();
    const credentials = {
      watch: () => {
        const w = {};
        watched.add(w);
        return () => void watched.delete(w);
      },
    };
    const me = { id: '00000000-0000-4000-8000-000000000002', email: 'me@example.com', sessionId: 's1' };
    await start({ authenticate: async () => me, credentials });
    const r = await WsClient.open(`${base}/realtime`);
    r.send({ type: 'subscribe', channel: 'user:00000000-0000-4000-8000-000000000001', token: 't', id: 1 });
    assert.equal((await r.next('error')).code, 'FORBIDDEN');
    r.send({ type: 'subscribe', channel: 'game:00000000-0000-4000-8000-000000000000', token: 't', id: 2 });
    assert.equal((await r.next('error')).code, 'GAME_NOT_FOUND');
    assert.equal(watched.size, 0, 'refused subscriptions are not watched');
    r.send({ type: 'subscribe', channel: 'lobby', token: 't', id: 3 });
    await r.next('subscribed');
    assert.equal(watched.size, 1);
    r.send({ type: 'unsubscribe', channel: 'lobby', id: 4 });
    await r.until('unsubscribed');
    assert.equal(watched.size, 0, 'an unsubscribed one neither');
    r.close();
  });

  it('closes every socket with 1012 when the service stops', async () => {
    await start();
    const clients = [await WsClient.open(`${base}/realtime`), await WsClient.open(`${base}/v1/games/00000000-0000-4000-8000-000000000000/stream`)];
    await clients[1].next('error');
    await realtime.close();
    assert.equal((await clients[0].closed).code, 1012);
  });
});
