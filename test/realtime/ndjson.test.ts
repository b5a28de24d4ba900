import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { testService } from '../helpers/service.ts';
import { api } from '../helpers/http.ts';
import { as, challenge, createActiveGame, getGame, play } from '../helpers/games.ts';
import { NdjsonClient, type NdMessage } from '../helpers/ndjson.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { subscribeUser, WsClient, type WsMessage } from '../helpers/ws.ts';
import { insertActiveGame } from '../support/fixtures.ts';

// DESIGN 2.12 "HTTP event streams", through the running service with a plain HTTP client: the
// game stream and the user channel as NDJSON, the same messages as their WebSocket forms.

const ndjson = (path: string, headers: Record<string, string> = {}) => NdjsonClient.open(path, headers);
const gameStream = (id: string, query = '', headers: Record<string, string> = {}) => ndjson(`/v1/games/${id}/stream${query}`, headers);
const bearer = (u: TestUser) => ({ authorization: `Bearer ${u.accessToken}` });
const say = (gameId: string, user: TestUser, text: string, room: 'player' | 'spectator') =>
  api('POST', `/v1/games/${gameId}/chat`, as(user, { text, room })).then((res) => assert.equal(res.status, 201, res.text));

/**
 * A stream's messages as they compare between its two forms: each `state` and the periodic
 * `time_update`s are made per viewer when they come (`ts`, and whether a 5 s tick fell inside the
 * test), everything else is the published message itself.
 */
function comparable(messages: Array<WsMessage | NdMessage>): unknown[] {
  return messages
    .filter((m, i) => !(m.type === 'time_update' && !(messages[i - 1]?.type === 'move' && messages[i - 1].v === m.v)))
    .map((m) => (m.type === 'state' ? { ...m, ts: 0 } : m));
}

describe('HTTP event streams (NDJSON)', () => {
  describe('GET /v1/games/{id}/stream (Accept: application/x-ndjson)', () => {
    it('streams a whole game, one JSON object per line: state, move + time_update per move, game_end, then the body ends', async () => {
      const [w, b] = await Promise.all([createUser(), createUser()]);
      const game = await createActiveGame(w, b, { initial_time: 300, increment: 2 });
      const s = await gameStream(game.id);
      assert.equal(s.status, 200);
      assert.match(s.res.headers['content-type'] ?? '', /^application\/x-ndjson/);
      assert.equal(s.res.headers['transfer-encoding'], 'chunked');
      assert.equal(s.res.headers['cache-control'], 'no-store');
      const state = await s.next('state');
      assert.equal(state.v, 0);
      assert.deepEqual(state.game, (await getGame(game.id, w)).body.data, 'the state is the game detail of GET /games/{id}');
      const line: Array<[TestUser, string, string]> = [[w, 'f2', 'f3'], [b, 'e7', 'e5'], [w, 'g2', 'g4'], [b, 'd8', 'h4']];
      for (const [i, [mover, from, to]] of line.entries()) {
        const answer = await play(game, mover, from, to);
        const move = await s.next('move');
        assert.equal(move.v, i + 1);
        assert.equal(move.move.san, answer.move.san);
        assert.deepEqual((await s.next('time_update')).times, move.times);
      }
      const end = await s.next('game_end');
      assert.equal(end.v, 5);
      assert.equal(end.result.termination, 'checkmate');
      assert.equal(await s.ended, 'complete', 'the chunked body ends after game_end');
      assert.deepEqual(s.pending, [], 'nothing after game_end');
    });

    it('resumes with ?since=v: the missed events from the replay buffer, then live ones', async () => {
      const [w, b] = await Promise.all([createUser(), createUser()]);
      const game = await createActiveGame(w, b);
      const first = await gameStream(game.id);
      await first.next('state');
      await play(game, w, 'e2', 'e4');
      await first.next('move');
      first.close();
      await play(game, b, 'e7', 'e5');
      await play(game, w, 'g1', 'f3');
      const back = await gameStream(game.id, '?since=1');
      for (const v of [2, 3]) {
        assert.equal((await back.next('move')).v, v);
        assert.equal((await back.next('time_update')).v, v);
      }
      await play(game, b, 'b8', 'c6');
      assert.equal((await back.next('move')).v, 4);
      assert.ok(!back.seen.some((m) => m.type === 'state'), 'no fresh state: the buffer had everything');
      back.close();
    });

    it('refuses before the stream starts with the error envelope: 400 since, 401 token, 404 game', async () => {
      const [a, b, c, d, stranger] = await Promise.all([createUser(), createUser(), createUser(), createUser(), createUser()]);
      const game = await createActiveGame(a, b);
      const pending = await challenge(c, d);
      const cases: Array<[string, string, Record<string, string>, number, string]> = [
        [game.id, '?since=-1', {}, 400, 'VALIDATION_ERROR'],
        [game.id, '?since=x', {}, 400, 'VALIDATION_ERROR'],
        [game.id, '?token=nope', {}, 401, 'UNAUTHORIZED'],
        [game.id, '', { authorization: 'Bearer nope' }, 401, 'UNAUTHORIZED'],
        [randomUUID(), '', {}, 404, 'GAME_NOT_FOUND'],
        ['not-a-uuid', '', {}, 404, 'GAME_NOT_FOUND'],
        [pending, '', bearer(stranger), 404, 'GAME_NOT_FOUND'],
      ];
      for (const [id, query, headers, status, code] of cases) {
        const s = await gameStream(id, query, headers);
        assert.equal(s.status, status, `${id}${query}`);
        assert.equal(s.body.success, false);
        assert.equal(s.body.error.code, code, `${id}${query}`);
      }
      // A pending game shows to its players.
      const mine = await gameStream(pending, '', bearer(c));
      assert.equal((await mine.next('state')).game.status, 'pending');
      mine.close();
    });

    it('keeps its answer without Accept: application/x-ndjson (404 NOT_FOUND: the stream is a WebSocket there)', async () => {
      const [a, b] = await Promise.all([createUser(), createUser()]);
      const game = await createActiveGame(a, b);
      for (const accept of ['application/json', '*/*', 'application/x-ndjson;q=0']) {
        const res = await api('GET', `/v1/games/${game.id}/stream`, { headers: { accept } });
        assert.equal(res.status, 404, accept);
        assert.equal(res.body.error.code, 'NOT_FOUND', accept);
      }
      const res = await api('GET', `/v1/games/${game.id}/stream`);
      assert.equal(res.status, 404);
    });

    it("sends a player's stream the player room's chat, and a spectator's never", async () => {
      const { service } = await testService();
      const [white, black, watcher] = await Promise.all([createUser(), createUser(), createUser()]);
      const gameId = await insertActiveGame(service.ctx.pool, white.id, black.id, { firstMoveDeadline: null });
      const [anon, signedIn, whites] = await Promise.all([gameStream(gameId), gameStream(gameId, '', bearer(watcher)), gameStream(gameId, `?token=${white.accessToken}`)]);
      await Promise.all([anon, signedIn, whites].map((s) => s.next('state')));
      await say(gameId, black, 'secret plan', 'player');
      await say(gameId, watcher, 'hello all', 'spectator');
      const chats = async (s: NdjsonClient, last: string) => {
        const seen: string[] = [];
        for (;;) {
          const m = await s.until('chat');
          seen.push(`${m.room}:${m.message.text}`);
          if (m.message.text === last) return seen;
        }
      };
      assert.deepEqual(await chats(anon, 'hello all'), ['spectator:hello all']);
      assert.deepEqual(await chats(signedIn, 'hello all'), ['spectator:hello all']);
      assert.deepEqual(await chats(whites, 'hello all'), ['player:secret plan', 'spectator:hello all']);
      for (const s of [anon, signedIn, whites]) s.close();
    });

    it('sends exactly what the WebSocket stream sends, in the same order with the same numbers', async () => {
      const [w, b] = await Promise.all([createUser(), createUser()]);
      const game = await createActiveGame(w, b);
      const [ws, nd] = await Promise.all([WsClient.open(`/v1/games/${game.id}/stream?token=${w.accessToken}`), gameStream(game.id, '', bearer(w))]);
      await Promise.all([ws.next('state'), nd.next('state')]);
      await play(game, w, 'e2', 'e4');
      await say(game.id, b, 'good luck', 'player');
      await play(game, b, 'e7', 'e5');
      assert.equal((await api('POST', `/v1/games/${game.id}/draw`, as(w))).status, 200);
      await play(game, b, 'd8', 'h4').catch(() => undefined); // not Black's turn: refused, nothing sent
      assert.equal((await api('POST', `/v1/games/${game.id}/resign`, as(b))).status, 200);
      await Promise.all([ws.until('game_end'), nd.until('game_end')]);
      assert.equal(await nd.ended, 'complete');
      assert.equal((await ws.closed).code, 1000);
      const types = nd.seen.map((m) => m.type);
      for (const t of ['state', 'move', 'time_update', 'chat', 'draw_offer', 'game_end']) assert.ok(types.includes(t), `${t} in ${types}`);
      assert.deepEqual(comparable(nd.seen), comparable(ws.seen));
    });
  });

  describe('GET /v1/stream/events', () => {
    it('answers 401 without a token, or with a bad one', async () => {
      for (const headers of [{}, { authorization: 'Bearer nope' }] as Record<string, string>[]) {
        const s = await ndjson('/v1/stream/events', headers);
        assert.equal(s.status, 401);
        assert.equal(s.res.headers['www-authenticate'], 'Bearer');
        assert.equal(s.body.error.code, 'UNAUTHORIZED');
      }
    });

    it("streams the caller's user channel: a challenge arriving, its decline, a game started, as the realtime socket sends them", async () => {
      const [a, b] = await Promise.all([createUser(), createUser()]);
      // No Accept needed: NDJSON is this route's one form.
      const [nd, ws] = await Promise.all([ndjson('/v1/stream/events', { ...bearer(b), accept: '*/*' }), subscribeUser(b)]);
      assert.equal(nd.status, 200);
      assert.match(nd.res.headers['content-type'] ?? '', /^application\/x-ndjson/);
      const first = await challenge(a, b);
      const received = await nd.next('challenge_received');
      assert.deepEqual({ ...received, ts: 0 }, { channel: `user:${b.id}`, type: 'challenge_received', game_id: first, from: { id: a.id, username: a.username }, ts: 0 });
      await api('POST', `/v1/games/${first}/cancel`, as(a));
      await nd.next('challenge_cancelled');
      const second = await challenge(a, b);
      await api('POST', `/v1/games/${second}/accept`, as(b));
      await nd.until('game_started');
      await ws.until('game_started');
      assert.deepEqual(nd.seen, ws.seen.filter((m) => m.type !== 'subscribed'), 'the same messages as the realtime socket, `subscribed` aside');
      nd.close();
      ws.close();
    });

    it('ends with error UNAUTHORIZED as its last line when the session ends (logout)', async () => {
      const u = await createUser();
      const nd = await ndjson('/v1/stream/events', bearer(u));
      assert.equal(nd.status, 200);
      assert.equal((await api('POST', '/v1/auth/logout', as(u))).status, 204);
      const error = await nd.next('error');
      assert.deepEqual([error.code, error.channel], ['UNAUTHORIZED', `user:${u.id}`]);
      assert.equal(await nd.ended, 'complete');
    });
  });
});
