import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { as, createActiveGame, getGame, playLine, type ActiveGame } from '../helpers/games.ts';
import { api } from '../helpers/http.ts';
import { testService } from '../helpers/service.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { WsClient } from '../helpers/ws.ts';
import { receiverPerTest } from '../support/receiver.ts';
import type { StreamMessage } from '../../src/realtime/messages.ts';

const post = (path: string, user: TestUser, body?: unknown, headers?: Record<string, string>) =>
  api('POST', path, { ...as(user, body), ...(headers ? { headers } : {}) });

/** DESIGN 2.11 "Takeback" over REST: every rule and error, and what the game shows after one. */
describe('Takebacks over REST', () => {
  let a: TestUser; // White
  let b: TestUser;
  let game: ActiveGame;
  beforeEach(async () => {
    [a, b] = await Promise.all([createUser(), createUser()]);
    game = await createActiveGame(a, b);
  });

  const propose = (user: TestUser) => post(`/v1/games/${game.id}/takeback`, user);
  const answer = (user: TestUser, id: string, accept: boolean, headers?: Record<string, string>) =>
    post(`/v1/games/${game.id}/takeback/${id}`, user, { accept }, headers);
  const refused = (res: { status: number; body: any; text: string }, status: number, code: string) => {
    assert.equal(res.status, status, res.text);
    assert.equal(res.body.error.code, code);
  };

  it("proposes the proposer's last move (1 ply) on the opponent's turn, their move and the reply (2) on their own", async () => {
    await playLine(game, ['e2e4', 'e7e5', 'g1f3']);
    const res = await propose(a);
    assert.equal(res.status, 200, res.text);
    const t = res.body.data.takeback;
    assert.deepEqual(Object.keys(t).sort(), ['expires_at', 'id', 'offered_by', 'plies', 'status']);
    assert.deepEqual([t.offered_by, t.plies, t.status], [a.id, 1, 'pending']);
    assert.match(t.expires_at, /Z$/);
    await answer(b, t.id, false);
    const own = await propose(b); // Black's turn: Black's e5 and White's Nf3
    assert.equal(own.status, 409, 'Black taking back 2 plies would undo a first move');
    await playLine(game, ['b8c6', 'f1c4'], 3);
    assert.equal((await propose(b)).body.data.takeback.plies, 2);
  });

  it('accepted: the plies leave moves, pgn, fen and move_count; the clocks keep their times and run for the side to move', async () => {
    await playLine(game, ['e2e4', 'e7e5', 'g1f3', 'b8c6']);
    const t = (await propose(a)).body.data.takeback; // White's turn: Nf3 and Nc6
    assert.equal(t.plies, 2);
    const res = await answer(b, t.id, true);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.takeback.status, 'accepted');
    const after = res.body.data.game;
    assert.deepEqual([after.status, after.move_count, after.current_turn], ['active', 2, 'white']);
    assert.equal(after.fen, 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2');

    const g = (await getGame(game.id, b)).body.data;
    assert.deepEqual([g.fen, g.pgn, g.move_count, g.current_turn], [after.fen, '1. e4 e5', 2, 'white']);
    assert.deepEqual(g.moves.map((m: any) => [m.white, m.black]), [['e4', 'e5']]);
    assert.ok(g.white_time_remaining <= after.white_time_remaining && g.black_time_remaining === after.black_time_remaining, JSON.stringify(g));

    // Play goes on at the freed plies; the finished game's PGN has no trace of the taken-back moves.
    await playLine(game, ['d2d4', 'e5d4'], 2);
    assert.equal((await post(`/v1/games/${game.id}/resign`, a)).status, 200);
    const pgn = await api('GET', `/v1/games/${game.id}/pgn`, as(a));
    assert.match(pgn.text, /\n1\. e4 \{[^}]*\} 1\.\.\. e5 \{[^}]*\} 2\. d4 \{[^}]*\}\s2\.\.\. exd4 \{[^}]*\} 0-1\n$/);
    assert.doesNotMatch(pgn.text, /Nf3|Nc6/);
    const finished = (await getGame(game.id, a)).body.data;
    assert.deepEqual([finished.move_count, finished.pgn], [4, '1. e4 e5 2. d4 exd4']);
  });

  it('declined: 200 with status declined, the game unchanged; the proposal cannot be answered again', async () => {
    await playLine(game, ['e2e4', 'e7e5', 'g1f3']);
    const t = (await propose(a)).body.data.takeback;
    const res = await answer(b, t.id, false);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.data.takeback.id, res.body.data.takeback.status], [t.id, 'declined']);
    assert.equal(res.body.data.game, undefined);
    assert.equal((await getGame(game.id, a)).body.data.move_count, 3);
    refused(await answer(b, t.id, true), 409, 'TAKEBACK_NOT_PENDING');
  });

  it('refuses before both sides have made their first move (409 TAKEBACK_NOT_ALLOWED)', async () => {
    refused(await propose(a), 409, 'TAKEBACK_NOT_ALLOWED');
    await playLine(game, ['e2e4']);
    refused(await propose(a), 409, 'TAKEBACK_NOT_ALLOWED');
    await playLine(game, ['e7e5'], 1);
    refused(await propose(b), 409, 'TAKEBACK_NOT_ALLOWED');
  });

  it('allows one pending proposal a game (409 TAKEBACK_PENDING) and three a player (409 TAKEBACK_LIMIT)', async () => {
    await playLine(game, ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4']);
    const first = (await propose(a)).body.data.takeback;
    refused(await propose(a), 409, 'TAKEBACK_PENDING');
    refused(await propose(b), 409, 'TAKEBACK_PENDING');
    await answer(b, first.id, false);
    for (let i = 0; i < 2; i++) {
      const t = (await propose(a)).body.data.takeback;
      assert.ok(t, 'proposed');
      await answer(b, t.id, false);
    }
    refused(await propose(a), 409, 'TAKEBACK_LIMIT');
    assert.equal((await propose(b)).status, 200, 'the limit is each player’s own');
  });

  it('lets only the recipient answer (403 FORBIDDEN); an unknown or malformed id is 404 TAKEBACK_NOT_FOUND; a bad body 400', async () => {
    await playLine(game, ['e2e4', 'e7e5', 'g1f3']);
    const t = (await propose(a)).body.data.takeback;
    refused(await answer(a, t.id, true), 403, 'FORBIDDEN');
    for (const id of [randomUUID(), 'not-a-takeback']) refused(await answer(b, id, true), 404, 'TAKEBACK_NOT_FOUND');
    refused(await post(`/v1/games/${game.id}/takeback/${t.id}`, b, { accept: 'yes' }), 400, 'VALIDATION_ERROR');
    refused(await post(`/v1/games/${game.id}/takeback/${t.id}`, b, {}), 400, 'VALIDATION_ERROR');
    assert.equal((await getGame(game.id, a)).body.data.move_count, 3, 'nothing changed');
    const c = await createUser();
    refused(await post(`/v1/games/${game.id}/takeback`, c), 403, 'NOT_A_PLAYER');
    refused(await post(`/v1/games/${randomUUID()}/takeback`, a), 404, 'GAME_NOT_FOUND');
  });

  it('lapses when anyone moves: answering then is 409 TAKEBACK_NOT_PENDING', async () => {
    await playLine(game, ['e2e4', 'e7e5', 'g1f3']);
    const t = (await propose(a)).body.data.takeback;
    await playLine(game, ['b8c6'], 3);
    refused(await answer(b, t.id, true), 409, 'TAKEBACK_NOT_PENDING');
    assert.equal((await getGame(game.id, a)).body.data.move_count, 4);
  });

  it('lapses after DRAW_OFFER_TTL_SECONDS', async () => {
    const { config } = await testService();
    await playLine(game, ['e2e4', 'e7e5', 'g1f3']);
    const t = (await propose(a)).body.data.takeback;
    const expiresAt = Date.parse(t.expires_at);
    assert.ok(Math.abs(expiresAt - Date.now() - config.drawOfferTtlMs) < 1000, t.expires_at);
    // The actor's timer closes it: the stream says so.
    const watch = await WsClient.open<StreamMessage>(`/v1/games/${game.id}/stream`);
    const lapsed = await watch.until('takeback_offer', 5000);
    watch.close();
    assert.deepEqual([lapsed.takeback.id, lapsed.takeback.status], [t.id, 'expired']);
    refused(await answer(b, t.id, true), 409, 'TAKEBACK_NOT_PENDING');
  });

  it('refuses a finished game (409 GAME_NOT_ACTIVE)', async () => {
    await playLine(game, ['e2e4', 'e7e5', 'g1f3']);
    const t = (await propose(a)).body.data.takeback;
    await post(`/v1/games/${game.id}/resign`, b);
    refused(await propose(a), 409, 'GAME_NOT_ACTIVE');
    refused(await answer(b, t.id, true), 409, 'GAME_NOT_ACTIVE');
  });

  it('answers a retried accept (same Idempotency-Key) as the first time, and takes back once', async () => {
    await playLine(game, ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4']);
    const t = (await propose(a)).body.data.takeback;
    const key = { 'Idempotency-Key': randomUUID() };
    const first = await answer(b, t.id, true, key);
    const again = await answer(b, t.id, true, key);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(again.body.data, first.body.data);
    assert.equal((await getGame(game.id, a)).body.data.move_count, 4);
  });

  describe('webhooks', () => {
    const hooks = receiverPerTest();

    it('sends no game.move for a takeback; the moves after it come at the plies it freed, on the board as it stands', async () => {
      // Registered before the game starts (the beforeEach game is not followed).
      const [w, bl] = await Promise.all([createUser(), createUser()]);
      await api('POST', '/v1/webhooks', as(w, { url: hooks.url, events: ['game.move'], secret: 'a-secret-of-at-least-16-chars' }));
      [a, b] = [w, bl];
      game = await createActiveGame(a, b);
      await playLine(game, ['e2e4', 'e7e5', 'g1f3', 'b8c6']);
      await hooks.receiver.waitFor(4);
      const t = (await propose(a)).body.data.takeback; // White's turn: Nf3 and Nc6
      assert.equal((await answer(b, t.id, true)).status, 200);
      const d4 = await playLine(game, ['d2d4'], 2);
      const moves = (await hooks.receiver.waitFor(5)).map((r) => r.json.data);
      assert.deepEqual(moves.map((m) => [m.move_count, m.move.san]), [[1, 'e4'], [2, 'e5'], [3, 'Nf3'], [4, 'Nc6'], [3, 'd4']]);
      assert.equal(moves[4].fen, d4.game.fen, 'the board replayed from the moves left');
    });
  });
});
