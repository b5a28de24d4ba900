import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { api } from '../helpers/http.ts';
import { as, createActiveGame, playLine } from '../helpers/games.ts';
import { receiverPerTest, WebhookReceiver, type Received } from '../support/receiver.ts';
import { until } from '../helpers/poll.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const ALL = ['game.started', 'game.finished', 'game.move', 'friend.request', 'friend.accepted', 'club.invite', 'tournament.started'];
const SECRET = 'a-secret-of-at-least-16-chars';

/** The Standard Webhooks verifier, with the key DESIGN 2.7 derives from a plain secret (its UTF-8 bytes). */
function verify(r: Received, secret = SECRET): unknown {
  const verifier = secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
  return verifier.verify(r.body, r.headers as Record<string, string>);
}

describe('webhooks', () => {
  const hooks = receiverPerTest();

  const register = (user: TestUser, body: object) => api('POST', '/v1/webhooks', as(user, body));

  describe('endpoints', () => {
    it('registers an endpoint: 201 {id, url, events, active, created_at}, the secret never echoed', async () => {
      const user = await createUser();
      const res = await register(user, { url: hooks.url, events: ['game.move', 'game.started'], secret: SECRET });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body.data).sort(), ['active', 'created_at', 'disabled_reason', 'events', 'id', 'url']);
      assert.equal(res.body.data.active, true);
      assert.ok(!res.text.includes(SECRET));
      const one = await api('GET', `/v1/webhooks/${res.body.data.id}`, as(user));
      assert.deepEqual(one.body.data, res.body.data);
      assert.ok(!one.text.includes(SECRET));
    });

    it('validates url, events and secret, naming each field', async () => {
      const user = await createUser();
      const cases: Array<[object, string[]]> = [
        [{ url: 'not a url', events: ['game.move'], secret: SECRET }, ['url']],
        [{ url: hooks.url, events: ['game.moved'], secret: SECRET }, ['events.0']],
        [{ url: hooks.url, events: [], secret: SECRET }, ['events']],
        [{ url: hooks.url, events: ['game.move'], secret: 'short' }, ['secret']],
        [{ url: 'ftp://example.com/x', events: ['game.move'], secret: SECRET }, ['url']],
        [{}, ['events', 'secret', 'url']],
      ];
      for (const [body, fields] of cases) {
        const res = await register(user, body);
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(Object.keys(res.body.error.details).sort(), fields, JSON.stringify(body));
      }
    });

    it('keeps endpoints to their owner: others get 404 WEBHOOK_NOT_FOUND on every route', async () => {
      const [owner, other] = await Promise.all([createUser(), createUser()]);
      const id = (await register(owner, { url: hooks.url, events: ALL, secret: SECRET })).body.data.id;
      for (const [method, path] of [
        ['GET', `/v1/webhooks/${id}`],
        ['GET', `/v1/webhooks/${id}/deliveries`],
        ['POST', `/v1/webhooks/${id}/test`],
        ['DELETE', `/v1/webhooks/${id}`],
        ['GET', `/v1/webhooks/${randomUUID()}`],
        ['GET', '/v1/webhooks/not-a-uuid'],
      ] as const) {
        const res = await api(method, path, as(other));
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.equal(res.body.error.code, 'WEBHOOK_NOT_FOUND');
      }
      const mine = await api('GET', '/v1/webhooks', as(other));
      assert.deepEqual([mine.body.data, mine.body.pagination.total], [[], 0]);
    });

    it('lists with pagination, deletes with 204, and allows at most 20 per user (409 WEBHOOK_LIMIT)', async () => {
      const user = await createUser();
      for (let i = 0; i < 20; i++) assert.equal((await register(user, { url: `${hooks.url}?n=${i}`, events: ['game.move'], secret: SECRET })).status, 201);
      const over = await register(user, { url: hooks.url, events: ['game.move'], secret: SECRET });
      assert.equal(over.status, 409);
      assert.equal(over.body.error.code, 'WEBHOOK_LIMIT');
      const page = await api('GET', '/v1/webhooks?limit=7&page=3', as(user));
      assert.equal(page.body.data.length, 6);
      assert.deepEqual([page.body.pagination.total, page.body.pagination.total_pages], [20, 3]);
      assert.equal((await api('DELETE', `/v1/webhooks/${page.body.data[0].id}`, as(user))).status, 204);
      assert.equal((await register(user, { url: hooks.url, events: ['game.move'], secret: SECRET })).status, 201, 'a place came free');
    });
  });

  it('delivers every event of a game, signed, in order: game.started, each game.move, game.finished', async () => {
    const [white, black] = await Promise.all([createUser(), createUser()]);
    await register(white, { url: hooks.url, events: ['game.started', 'game.move', 'game.finished'], secret: SECRET });
    const game = await createActiveGame(white, black);
    await playLine(game, ['f2f3', 'e7e5', 'g2g4', 'd8h4']); // fool's mate
    const all = await hooks.receiver.waitFor(6);
    assert.deepEqual(all.map((r) => r.json.type), ['game.started', 'game.move', 'game.move', 'game.move', 'game.move', 'game.finished']);
    for (const r of all) {
      assert.deepEqual(verify(r), r.json, 'the standardwebhooks verifier accepts the signature');
      assert.match(r.headers['webhook-id'] as string, /^msg_[0-9a-f-]{36}$/);
      assert.ok(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.match(r.json.timestamp, /Z$/);
    }
    const [started, ...rest] = all.map((r) => r.json);
    assert.equal(started.data.game.id, game.id);
    assert.equal(started.data.game.white_player.id, white.id);
    const moves = rest.slice(0, 4);
    assert.deepEqual(moves.map((m) => [m.data.move_count, m.data.move.san]), [[1, 'f3'], [2, 'e5'], [3, 'g4'], [4, 'Qh4#']]);
    assert.deepEqual(Object.keys(moves[0].data).sort(), ['fen', 'game_id', 'move', 'move_count', 'times']);
    assert.deepEqual(moves[3].data.move, { from: 'd8', to: 'h4', san: 'Qh4#', piece: 'q', captured: null, promotion: null, flags: 'n' });
    assert.equal(moves[3].data.fen, 'rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3');
    assert.deepEqual(moves[1].data.times, { white: 300, black: 300 });
    const finished = rest[4].data;
    assert.deepEqual(Object.keys(finished).sort(), ['game_id', 'rating_changes', 'result', 'termination', 'winner']);
    assert.deepEqual([finished.result, finished.winner, finished.termination], ['0-1', 'black', 'checkmate']);
    assert.ok(finished.rating_changes.black > 0);
  });

  it('follows a game from the next move when the endpoint is registered mid-game', async () => {
    const [white, black] = await Promise.all([createUser(), createUser()]);
    const game = await createActiveGame(white, black);
    await playLine(game, ['e2e4', 'e7e5']);
    await register(white, { url: hooks.url, events: ['game.move'], secret: SECRET });
    const third = await playLine(game, ['g1f3'], 2);
    await playLine(game, ['b8c6'], 3);
    const moves = (await hooks.receiver.waitFor(2)).map((r) => r.json.data);
    assert.deepEqual(moves.map((m) => [m.move_count, m.move.san]), [[3, 'Nf3'], [4, 'Nc6']]);
    assert.equal(moves[0].fen, third.game.fen, 'the board replayed from the moves before it');
    assert.deepEqual(moves[0].times, { white: third.game.white_time_remaining, black: third.game.black_time_remaining });
  });

  it('delivers to the players only, and only the events an endpoint subscribes to', async () => {
    const [white, black, stranger] = await Promise.all([createUser(), createUser(), createUser()]);
    await register(stranger, { url: `${hooks.url}?stranger`, events: ALL, secret: SECRET });
    await register(black, { url: `${hooks.url}?black`, events: ['game.finished'], secret: SECRET });
    const game = await createActiveGame(white, black);
    await playLine(game, ['e2e4']);
    await api('POST', `/v1/games/${game.id}/resign`, as(white));
    const [finished] = await hooks.receiver.waitFor(1);
    assert.equal(finished.json.type, 'game.finished');
    // Once its game.finished row is fanned out, every delivery the game will cause exists (its
    // start and moves go out first): what is queued is all that will ever be sent.
    const { pool } = (await testService()).service.ctx;
    await until('the game fanned out', async () =>
      (await pool.query(`SELECT 1 FROM outbox WHERE game_id = $1 AND topic = 'game.finished' AND processed_at IS NOT NULL`, [game.id])).rowCount === 1,
    );
    const queued = await pool.query(
      `SELECT w.url, d.event FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.user_id = ANY($1::uuid[])`,
      [[stranger.id, black.id]],
    );
    assert.deepEqual(queued.rows, [{ url: `${hooks.url}?black`, event: 'game.finished' }], "nothing of the game for the stranger, nothing black did not ask for");
    assert.deepEqual(hooks.receiver.received.map((r) => r.json.type), ['game.finished']);
  });

  it('sends a webhook.test delivery and lists it with its status and attempts', async () => {
    const user = await createUser();
    const id = (await register(user, { url: hooks.url, events: ['game.move'], secret: 'whsec_' + Buffer.from('0123456789abcdef0123').toString('base64') })).body.data.id;
    const res = await api('POST', `/v1/webhooks/${id}/test`, as(user));
    assert.equal(res.status, 202, res.text);
    const [got] = await hooks.receiver.waitFor(1);
    assert.equal(got.json.type, 'webhook.test');
    assert.equal(got.headers['webhook-id'], res.body.data.id);
    verify(got, 'whsec_' + Buffer.from('0123456789abcdef0123').toString('base64'));
    let delivery;
    for (let i = 0; i < 50; i++) {
      delivery = (await api('GET', `/v1/webhooks/${id}/deliveries`, as(user))).body;
      if (delivery.data[0]?.status === 'delivered') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(
      { ...delivery.data[0], created_at: 0, delivered_at: 0 },
      { id: res.body.data.id, event: 'webhook.test', status: 'delivered', attempts: 1, last_response_code: 200, last_error: null, next_attempt_at: null, created_at: 0, delivered_at: 0 },
    );
    assert.equal(delivery.pagination.total, 1);
    // The operators see it: attempts by outcome, their latency, the queue.
    const { service } = await testService();
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    assert.match(metrics, /^chess_webhook_attempts_total\{outcome="delivered"\} [1-9]/m);
    assert.match(metrics, /^chess_webhook_attempt_seconds_count [1-9]/m);
    assert.match(metrics, /^chess_webhook_deliveries_pending \d+$/m);
  });

  describe('one user against a slow receiver', () => {
    let slow: WebhookReceiver;
    let slowUrl: string;
    beforeEach(async () => {
      slow = new WebhookReceiver();
      slowUrl = await slow.start();
      // Answers a byte every 200 ms: never idle, done long after the 10 s an attempt may take.
      slow.respond = () => ({ drip: { everyMs: 200, part: 'headers' } });
    });
    afterEach(() => slow.stop());

    it('answers 429 RATE_LIMIT_EXCEEDED, in the envelope, to a fourth test while three wait', async () => {
      const user = await createUser();
      const id = (await register(user, { url: slowUrl, events: ['game.move'], secret: SECRET })).body.data.id;
      for (let i = 0; i < 3; i++) assert.equal((await api('POST', `/v1/webhooks/${id}/test`, as(user))).status, 202);
      const over = await api('POST', `/v1/webhooks/${id}/test`, as(user));
      assert.equal(over.status, 429, over.text);
      assert.deepEqual([over.body.success, over.body.error.code], [false, 'RATE_LIMIT_EXCEEDED']);
      assert.match(over.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
      const listed = await api('GET', `/v1/webhooks/${id}/deliveries`, as(user));
      assert.equal(listed.body.pagination.total, 3, 'the refused test was not queued');
    });

    it('keeps to 3 pending tests when many are asked for at once', async () => {
      const user = await createUser();
      const id = (await register(user, { url: slowUrl, events: ['game.move'], secret: SECRET })).body.data.id;
      const answers = await Promise.all(Array.from({ length: 8 }, () => api('POST', `/v1/webhooks/${id}/test`, as(user))));
      assert.deepEqual(answers.map((a) => a.status).sort(), [202, 202, 202, 429, 429, 429, 429, 429]);
    });

    // Seven endpoints and 21 tests: as many as one user's 30 writes a minute allow.
    it("holds at most 4 of one user's deliveries in flight, and sends another user's test at once, while the first user's receiver drips", async () => {
      const hog = await createUser();
      for (let i = 0; i < 7; i++) {
        const id = (await register(hog, { url: `${slowUrl}?n=${i}`, events: ['game.move'], secret: SECRET })).body.data.id;
        for (let t = 0; t < 3; t++) assert.equal((await api('POST', `/v1/webhooks/${id}/test`, as(hog))).status, 202);
      }
      await slow.waitFor(4);
      const user = await createUser();
      const id = (await register(user, { url: hooks.url, events: ['game.move'], secret: SECRET })).body.data.id;
      assert.equal((await api('POST', `/v1/webhooks/${id}/test`, as(user))).status, 202);
      await hooks.receiver.waitFor(1, () => true, 3000);
      assert.equal(slow.received.length, 4, "one user's deliveries in flight at once: 4");
    });
  });
});
