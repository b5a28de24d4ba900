import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventBus } from '../../src/events.ts';
import { AppError, isAppError } from '../../src/errors.ts';
import type { Realtime, RealtimeDeps } from '../../src/realtime/index.ts';
import type { ManualClock } from '../helpers/clock.ts';
import { NdjsonClient } from '../helpers/ndjson.ts';
import { until } from '../helpers/poll.ts';
import { standaloneRealtime } from '../helpers/realtimeNode.ts';
import { WsClient } from '../helpers/ws.ts';

const ALICE = { id: '00000000-0000-4000-8000-00000000000a', email: 'a@example.com', sessionId: '00000000-0000-4000-8000-0000000000a1' };
const BOB = { id: '00000000-0000-4000-8000-00000000000b', email: 'b@example.com', sessionId: '00000000-0000-4000-8000-0000000000b1' };
const USERS: Record<string, typeof ALICE> = { alice: ALICE, bob: BOB };
const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';

/**
 * The HTTP streams' hygiene on a realtime endpoint of its own (an HTTP server in this process, an
 * in-process event bus, a manual clock): keep-alives, what a closed stream gives back, the socket
 * caps they share with the WebSockets, slow readers, shutdown. Tokens are user names here.
 */
describe('HTTP event streams: keep-alive, cleanup, caps, back-pressure, shutdown', () => {
  let server: http.Server;
  let realtime: Realtime;
  let bus: EventBus;
  let clock: ManualClock;
  let base: string;

  async function start(o: Partial<RealtimeDeps> = {}) {
    ({ realtime, bus, clock } = standaloneRealtime({
      authenticate: async (token) => {
        const user = USERS[token];
        if (!user) throw new AppError('UNAUTHORIZED', 'no');
        return user;
      },
      ...o,
    }));
    server = http.createServer((req, res) =>
      // What the side app's error handler does with a refusal: the envelope.
      realtime.serveHttp(req, res, (error) => {
        const e = isAppError(error) ? error : new AppError('NOT_FOUND', 'no route');
        res.writeHead(e.status, { 'content-type': 'application/json' }).end(JSON.stringify({ success: false, error: e.toJSON() }));
      }),
    );
    server.on('upgrade', (req, socket, head) => realtime.upgrade(req, socket, head));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const events = (token: string) => NdjsonClient.open(`http://${base}/v1/stream/events`, { authorization: `Bearer ${token}` });
  const challengeTo = (user: typeof ALICE, n: number, note = '') =>
    bus.publishRaw(`user:${user.id}`, JSON.stringify({ type: 'challenge_received', game_id: `game-${n}`, from: { id: BOB.id, username: 'bob' }, note, ts: n }));

  afterEach(async () => {
    await realtime?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('sends an empty line every keepAliveMs on the service clock, and the messages between', async () => {
    await start({ keepAliveMs: 7000 });
    const s = await events('alice');
    assert.equal(s.status, 200);
    await clock.advance(7000);
    await s.keptAlive(1);
    challengeTo(ALICE, 1);
    assert.equal((await s.next('challenge_received')).game_id, 'game-1');
    await clock.advance(7000);
    await s.keptAlive(2);
    assert.equal(s.keepAlives, 2);
    s.close();
  });

  it('gives everything back when the client hangs up: the subscription, the socket count, the address and user places', async () => {
    await start({ caps: { perAddress: 1, perUser: 1 } });
    const s = await events('alice');
    assert.deepEqual(realtime.stats(), { sockets: 1, channels: 1 });
    s.close();
    await until('the closed stream is gone', () => realtime.stats().sockets === 0 && realtime.stats().channels === 0, { ms: 2000 });
    // Its address and user places are free again: a cap of one admits the next.
    const again = await events('alice');
    assert.equal(again.status, 200);
    challengeTo(ALICE, 2);
    assert.equal((await again.next('challenge_received')).game_id, 'game-2');
    again.close();
  });

  it('counts HTTP streams in the per-address and per-user caps of the sockets', async () => {
    await start({ caps: { perAddress: 3, perUser: 1 } });
    const alices = await events('alice');
    assert.equal(alices.status, 200);
    // Alice's one place is taken by her HTTP stream: neither a socket nor another stream gets one.
    const socket = await WsClient.open(`ws://${base}/realtime`);
    socket.send({ type: 'subscribe', channel: `user:${ALICE.id}`, token: 'alice' });
    assert.equal((await socket.next('error')).code, 'RATE_LIMIT_EXCEEDED');
    const second = await events('alice');
    assert.deepEqual([second.status, second.body.error.code], [429, 'RATE_LIMIT_EXCEEDED']);
    // The address: Alice's stream, the socket and Bob's stream hold its three places.
    const bobs = await events('bob');
    assert.equal(bobs.status, 200);
    const fourth = await NdjsonClient.open(`http://${base}/v1/games/00000000-0000-4000-8000-000000000001/stream`);
    assert.deepEqual([fourth.status, fourth.body.error.code], [429, 'RATE_LIMIT_EXCEEDED']);
    // Alice hangs up her stream: her place goes to her socket.
    alices.close();
    await until('her place is free', () => realtime.stats().sockets === 2, { ms: 2000 });
    socket.send({ type: 'subscribe', channel: `user:${ALICE.id}`, token: 'alice' });
    assert.equal((await socket.next('subscribed')).channel, `user:${ALICE.id}`);
    socket.close();
    bobs.close();
  });

  it('counts the TV feed (DESIGN 2.14) in its address cap, keeps it alive, and gives its place back when it hangs up', async () => {
    await start({ caps: { perAddress: 1, perUser: 1 }, keepAliveMs: 7000, featured: async () => null });
    const tv = await NdjsonClient.open(`http://${base}/v1/tv/feed`);
    assert.equal(tv.status, 200);
    assert.deepEqual(await tv.next('featured'), { type: 'featured', game_id: null, players: null, orientation: 'white', fen: START, last_move: null, ts: clock.now() });
    const second = await NdjsonClient.open(`http://${base}/v1/tv/feed`);
    assert.deepEqual([second.status, second.body.error.code], [429, 'RATE_LIMIT_EXCEEDED']);
    await clock.advance(7000);
    await tv.keptAlive(1);
    tv.close();
    await until('its place is free', () => realtime.stats().sockets === 0, { ms: 2000 });
    const again = await NdjsonClient.open(`http://${base}/v1/tv/feed`);
    assert.equal(again.status, 200);
    again.close();
  });

  it('cuts off a reader that lets unsent lines pile up instead of buffering for it', async () => {
    await start({ limits: { maxBufferedBytes: 64 * 1024 } });
    const slow = await events('alice');
    challengeTo(ALICE, 0);
    await slow.next('challenge_received');
    slow.res.pause();
    slow.res.socket.pause();
    let published = 0;
    // Until the server gives up on the reader (the kernel's buffers take some megabytes first).
    while (realtime.stats().sockets > 0 && published < 40_000) {
      challengeTo(ALICE, ++published, 'x'.repeat(3000));
      if (published % 100 === 0) await new Promise((r) => setImmediate(r));
    }
    assert.equal(realtime.stats().sockets, 0, `still open after ${published} messages`);
    await until('its subscription ended with it', () => realtime.stats().channels === 0, { ms: 2000 });
    slow.res.socket.resume();
    slow.res.resume();
    assert.equal(await slow.ended, 'aborted', 'the body stops without its last chunk');
  });

  it('ends every HTTP stream when the service stops, its last line saying so', async () => {
    await start();
    const s = await events('alice');
    const started = Date.now();
    await realtime.close();
    assert.ok(Date.now() - started < 2000, 'no stream holds the drain up');
    const last = await s.next('error');
    assert.equal(last.code, 'SERVICE_UNAVAILABLE');
    assert.equal(await s.ended, 'complete');
    assert.deepEqual(realtime.stats(), { sockets: 0, channels: 0 });
  });

  it('leaves other paths, and a game stream asked without NDJSON, to the rest of the app (next)', async () => {
    await start();
    for (const [path, accept] of [
      ['/v1/games/00000000-0000-4000-8000-000000000001/stream', 'application/json'],
      ['/v1/stream/elsewhere', 'application/x-ndjson'],
      ['/stream/events', 'application/x-ndjson'],
    ]) {
      const s = await NdjsonClient.open(`http://${base}${path}`, { accept });
      assert.deepEqual([s.status, s.body.error.code], [404, 'NOT_FOUND'], path);
    }
    const unknown = await NdjsonClient.open(`http://${base}/v1/games/00000000-0000-4000-8000-000000000001/stream`);
    assert.deepEqual([unknown.status, unknown.body.error.code], [404, 'GAME_NOT_FOUND']);
    assert.deepEqual(realtime.stats(), { sockets: 0, channels: 0 });
  });
});
