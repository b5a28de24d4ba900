import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { as, challenge, createActiveGame, getGame, play, playLine, sendMove, type ActiveGame } from '../helpers/games.ts';
import { api, newIp } from '../helpers/http.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const post = (path: string, user: TestUser, body?: unknown) => api('POST', path, as(user, body));
const FOOLS_MATE = ['f2f3', 'e7e5', 'g2g4', 'd8h4'];

describe('Playing over REST', () => {
  let a: TestUser;
  let b: TestUser;
  let c: TestUser; // not a player
  let game: ActiveGame;
  beforeEach(async () => {
    [a, b, c] = await Promise.all([createUser(), createUser(), createUser()]);
    game = await createActiveGame(a, b); // a is White
  });

  describe('POST /games/{id}/moves', () => {
    it('makes a move: 200 with the Move and the game after it', async () => {
      const res = await sendMove(game, a, 'e2', 'e4');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data.move, { from: 'e2', to: 'e4', san: 'e4', piece: 'p', captured: null, promotion: null, flags: 'b' });
      const g = res.body.data.game;
      assert.deepEqual(Object.keys(g).sort(), [
        'black_time_remaining', 'current_turn', 'fen', 'in_check', 'in_checkmate', 'in_draw', 'in_stalemate', 'move_count',
        'status', 'white_time_remaining',
      ]);
      assert.equal(g.status, 'active');
      assert.equal(g.current_turn, 'black');
      assert.equal(g.move_count, 1);
      assert.equal(g.fen, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1');
      assert.equal(g.white_time_remaining, 300);
      assert.equal(g.black_time_remaining, 300);
      assert.deepEqual([g.in_check, g.in_checkmate, g.in_stalemate, g.in_draw], [false, false, false, false]);
    });

    it('reports a capture and a check', async () => {
      const data = await playLine(game, ['e2e4', 'd7d5', 'e4d5', 'd8d5', 'b1c3', 'd5e5']);
      assert.equal(data.move.san, 'Qe5+');
      assert.equal(data.game.in_check, true);
      const capture = (await getGame(game.id, a)).body.data.moves[1];
      assert.equal(capture.white, 'exd5');
      assert.equal(capture.black, 'Qxd5');
    });

    it("plays a whole game to checkmate (fool's mate): finished, 0-1, checkmate", async () => {
      const data = await playLine(game, FOOLS_MATE);
      assert.equal(data.move.san, 'Qh4#');
      assert.equal(data.game.status, 'finished');
      assert.equal(data.game.in_checkmate, true);
      assert.equal(data.game.in_check, true);
      const g = (await getGame(game.id, b)).body.data;
      assert.equal(g.status, 'finished');
      assert.equal(g.result, '0-1');
      assert.equal(g.winner, 'black');
      assert.equal(g.termination, 'checkmate');
      assert.equal(g.move_count, 4);
      assert.equal(g.pgn, '1. f3 e5 2. g4 Qh4#');
      assert.ok(g.rating_changes.white < 0 && g.rating_changes.black > 0, JSON.stringify(g.rating_changes));
      assert.equal(g.draw_offer, null);
      assert.deepEqual(g.moves.map((m: any) => [m.number, m.white, m.black]), [[1, 'f3', 'e5'], [2, 'g4', 'Qh4#']]);
    });

    it('refuses any move after the game ended (409 GAME_NOT_ACTIVE)', async () => {
      await playLine(game, FOOLS_MATE);
      const res = await sendMove(game, a, 'e2', 'e4');
      assert.equal(res.status, 409);
      assert.equal(res.body.error.code, 'GAME_NOT_ACTIVE');
    });

    it("refuses a move out of turn (403 NOT_YOUR_TURN)", async () => {
      const res = await sendMove(game, b, 'e7', 'e5');
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'NOT_YOUR_TURN');
    });

    it('refuses an illegal move (400 INVALID_MOVE)', async () => {
      const res = await sendMove(game, a, 'e2', 'e5');
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'INVALID_MOVE');
      const empty = await sendMove(game, a, 'e4', 'e5');
      assert.equal(empty.body.error.code, 'INVALID_MOVE');
    });

    it('requires a promotion piece when a pawn reaches the last rank (400 details.promotion), then promotes', async () => {
      await playLine(game, ['a2a4', 'b7b5', 'a4b5', 'a7a6', 'b5a6', 'c8b7', 'a6b7', 'h7h6']);
      const missing = await sendMove(game, a, 'b7', 'a8');
      assert.equal(missing.status, 400);
      assert.equal(missing.body.error.code, 'VALIDATION_ERROR');
      assert.ok(missing.body.error.details.promotion);
      const promoted = await play(game, a, 'b7', 'a8', 'q');
      assert.equal(promoted.move.san, 'bxa8=Q');
      assert.equal(promoted.move.promotion, 'q');
      assert.equal(promoted.move.captured, 'r');
    });

    it('is also served as PATCH /games/{id}/move', async () => {
      const res = await api('PATCH', `/v1/games/${game.id}/move`, as(a, { from: 'd2', to: 'd4' }));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.move.san, 'd4');
      assert.equal(res.headers.get('x-ratelimit-limit'), '100');
    });

    describe('checks in order: body → game exists → player → active → turn → legal', () => {
      it('refuses a malformed body with 400 before anything else, even from a non-player', async () => {
        for (const body of [{ from: 'e2' }, { from: 'e9', to: 'e4' }, { from: 'E2', to: 'E4' }, { from: 'e2', to: 'e4', promotion: 'k' }, { from: 2, to: [] }]) {
          const res = await sendMove(game, c, (body as any).from, (body as any).to, (body as any).promotion);
          assert.equal(res.status, 400, `${JSON.stringify(body)} → ${res.text}`);
          assert.equal(res.body.error.code, 'VALIDATION_ERROR');
        }
        const unknownGame = await api('POST', `/v1/games/${randomUUID()}/moves`, as(c, { from: 'e2' }));
        assert.equal(unknownGame.status, 400);
      });

      it('answers an unknown or malformed game id with 404 GAME_NOT_FOUND', async () => {
        for (const id of [randomUUID(), 'nope']) {
          const res = await api('POST', `/v1/games/${id}/moves`, as(a, { from: 'e2', to: 'e4' }));
          assert.equal(res.status, 404);
          assert.equal(res.body.error.code, 'GAME_NOT_FOUND');
        }
      });

      it('refuses a non-player with 403 NOT_A_PLAYER, also when the game is over (before 409)', async () => {
        const res = await sendMove(game, c, 'e2', 'e4');
        assert.equal(res.status, 403);
        assert.equal(res.body.error.code, 'NOT_A_PLAYER');
        await playLine(game, FOOLS_MATE);
        const after = await sendMove(game, c, 'e2', 'e4');
        assert.equal(after.status, 403);
        assert.equal(after.body.error.code, 'NOT_A_PLAYER');
      });

      it('answers a participant of a pending game with 409 GAME_NOT_ACTIVE', async () => {
        const d = await createUser();
        const pending = await challenge(c, d);
        const res = await sendMove(pending, c, 'e2', 'e4');
        assert.equal(res.status, 409);
        assert.equal(res.body.error.code, 'GAME_NOT_ACTIVE');
      });

      it('checks the turn before legality (403 for an illegal move out of turn)', async () => {
        const res = await sendMove(game, b, 'e7', 'e2');
        assert.equal(res.status, 403);
        assert.equal(res.body.error.code, 'NOT_YOUR_TURN');
      });
    });

    it('requires a valid access token (401)', async () => {
      const res = await api('POST', `/v1/games/${game.id}/moves`, { ip: newIp(), body: { from: 'e2', to: 'e4' } });
      assert.equal(res.status, 401);
    });
  });

  describe('POST /games/{id}/resign', () => {
    it('ends the game for the opponent: 0-1 when White resigns, with rating changes', async () => {
      await playLine(game, ['e2e4', 'e7e5']);
      const res = await post(`/v1/games/${game.id}/resign`, a);
      assert.equal(res.status, 200, res.text);
      const d = res.body.data;
      assert.deepEqual(Object.keys(d).sort(), ['rating_changes', 'result', 'status', 'termination', 'winner']);
      assert.equal(d.status, 'finished');
      assert.equal(d.result, '0-1');
      assert.equal(d.winner, 'black');
      assert.equal(d.termination, 'resignation');
      assert.ok(Number.isInteger(d.rating_changes.white) && d.rating_changes.white < 0);
      assert.ok(Number.isInteger(d.rating_changes.black) && d.rating_changes.black > 0);
      const g = (await getGame(game.id, a)).body.data;
      assert.deepEqual(g.rating_changes, d.rating_changes);
    });

    it('gives 1-0 when Black resigns, and 0/0 rating changes in an unrated game', async () => {
      const [x, y] = await Promise.all([createUser(), createUser()]);
      const unrated = await createActiveGame(x, y, { rated: false });
      const res = await post(`/v1/games/${unrated.id}/resign`, y);
      assert.equal(res.body.data.result, '1-0');
      assert.equal(res.body.data.winner, 'white');
      assert.deepEqual(res.body.data.rating_changes, { white: 0, black: 0 });
    });

    it("seats the players' new ratings in their next game", async () => {
      const res = await post(`/v1/games/${game.id}/resign`, a);
      const { white, black } = res.body.data.rating_changes;
      const next = await challenge(b, a); // same category (blitz)
      const pending = (await getGame(next, a)).body.data;
      assert.equal(pending.white_player.rating, 1500 + black);
      assert.equal(pending.black_player.rating, 1500 + white);
      const started = (await post(`/v1/games/${next}/accept`, a)).body.data;
      assert.equal(started.white_player.rating, 1500 + black);
    });

    it('refuses a non-player (403 NOT_A_PLAYER) and a game that is over (409 GAME_NOT_ACTIVE)', async () => {
      const stranger = await post(`/v1/games/${game.id}/resign`, c);
      assert.equal(stranger.status, 403);
      assert.equal(stranger.body.error.code, 'NOT_A_PLAYER');
      await post(`/v1/games/${game.id}/resign`, b);
      const again = await post(`/v1/games/${game.id}/resign`, a);
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'GAME_NOT_ACTIVE');
      const strangerAfter = await post(`/v1/games/${game.id}/resign`, c);
      assert.equal(strangerAfter.body.error.code, 'NOT_A_PLAYER');
    });

    it('answers an unknown game with 404 GAME_NOT_FOUND', async () => {
      const res = await post(`/v1/games/${randomUUID()}/resign`, a);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'GAME_NOT_FOUND');
    });
  });

  describe('draw offers', () => {
    beforeEach(async () => {
      await playLine(game, ['e2e4', 'e7e5']); // clocks run: no first-move abort during the test
    });

    it('offers a draw: 200 with the pending offer, shown in the game detail', async () => {
      const res = await post(`/v1/games/${game.id}/draw`, a);
      assert.equal(res.status, 200, res.text);
      const offer = res.body.data.draw_offer;
      assert.deepEqual(Object.keys(offer).sort(), ['expires_at', 'id', 'offered_by', 'status']);
      assert.equal(offer.offered_by, a.id);
      assert.equal(offer.status, 'pending');
      assert.match(offer.expires_at, /Z$/);
      const g = (await getGame(game.id, b)).body.data;
      assert.deepEqual(g.draw_offer, offer);
    });

    it('ends the game by agreement when the recipient accepts', async () => {
      const offer = (await post(`/v1/games/${game.id}/draw`, a)).body.data.draw_offer;
      const res = await post(`/v1/games/${game.id}/draw/${offer.id}`, b, { accept: true });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.status, 'finished');
      assert.equal(res.body.data.result, '1/2-1/2');
      assert.equal(res.body.data.winner, null);
      assert.equal(res.body.data.termination, 'agreement');
      assert.ok(res.body.data.rating_changes);
      const g = (await getGame(game.id, a)).body.data;
      assert.equal(g.result, '1/2-1/2');
      assert.equal(g.draw_offer, null);
    });

    it('keeps playing when the recipient declines', async () => {
      const offer = (await post(`/v1/games/${game.id}/draw`, a)).body.data.draw_offer;
      const res = await post(`/v1/games/${game.id}/draw/${offer.id}`, b, { accept: false });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.status, 'active');
      assert.equal(res.body.data.draw_offer.id, offer.id);
      assert.equal(res.body.data.draw_offer.status, 'declined');
      assert.equal((await getGame(game.id, a)).body.data.draw_offer, null);
      const again = await post(`/v1/games/${game.id}/draw/${offer.id}`, b, { accept: true });
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'DRAW_OFFER_NOT_PENDING');
    });

    it("accepts the opponent's pending offer when offering in turn", async () => {
      const offer = (await post(`/v1/games/${game.id}/draw`, a)).body.data.draw_offer;
      const res = await post(`/v1/games/${game.id}/draw`, b);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.draw_offer.id, offer.id);
      assert.equal(res.body.data.draw_offer.status, 'accepted');
      assert.equal(res.body.data.status, 'finished');
      assert.equal(res.body.data.result, '1/2-1/2');
      assert.equal(res.body.data.termination, 'agreement');
    });

    it('refuses a second offer while one is pending (409 DRAW_OFFER_PENDING)', async () => {
      await post(`/v1/games/${game.id}/draw`, a);
      const res = await post(`/v1/games/${game.id}/draw`, a);
      assert.equal(res.status, 409);
      assert.equal(res.body.error.code, 'DRAW_OFFER_PENDING');
    });

    it('refuses a new offer within 20 plies of the same player’s previous one (409 DRAW_OFFER_LIMIT)', async () => {
      const offer = (await post(`/v1/games/${game.id}/draw`, a)).body.data.draw_offer;
      await post(`/v1/games/${game.id}/draw/${offer.id}`, b, { accept: false });
      await playLine(game, ['g1f3', 'b8c6'], 2);
      const res = await post(`/v1/games/${game.id}/draw`, a);
      assert.equal(res.status, 409);
      assert.equal(res.body.error.code, 'DRAW_OFFER_LIMIT');
      // The limit is per player: the opponent may still offer.
      assert.equal((await post(`/v1/games/${game.id}/draw`, b)).status, 200);
    });

    it('lets only the recipient answer (403 FORBIDDEN)', async () => {
      const offer = (await post(`/v1/games/${game.id}/draw`, a)).body.data.draw_offer;
      const res = await post(`/v1/games/${game.id}/draw/${offer.id}`, a, { accept: true });
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'FORBIDDEN');
    });

    it('answers an unknown or malformed offer id with 404 DRAW_OFFER_NOT_FOUND', async () => {
      await post(`/v1/games/${game.id}/draw`, a);
      for (const offerId of [randomUUID(), 'not-an-offer']) {
        const res = await post(`/v1/games/${game.id}/draw/${offerId}`, b, { accept: true });
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.error.code, 'DRAW_OFFER_NOT_FOUND');
      }
    });

    it('requires accept as a boolean (400 VALIDATION_ERROR)', async () => {
      const offer = (await post(`/v1/games/${game.id}/draw`, a)).body.data.draw_offer;
      for (const body of [{}, { accept: 'yes' }, { accept: null }]) {
        const res = await post(`/v1/games/${game.id}/draw/${offer.id}`, b, body);
        assert.equal(res.status, 400);
        assert.ok(res.body.error.details.accept);
      }
    });

    it('refuses non-players (403 NOT_A_PLAYER) and finished games (409 GAME_NOT_ACTIVE)', async () => {
      const offer = (await post(`/v1/games/${game.id}/draw`, a)).body.data.draw_offer;
      assert.equal((await post(`/v1/games/${game.id}/draw`, c)).body.error.code, 'NOT_A_PLAYER');
      assert.equal((await post(`/v1/games/${game.id}/draw/${offer.id}`, c, { accept: true })).body.error.code, 'NOT_A_PLAYER');
      await post(`/v1/games/${game.id}/resign`, b);
      const offerAfter = await post(`/v1/games/${game.id}/draw`, a);
      assert.equal(offerAfter.status, 409);
      assert.equal(offerAfter.body.error.code, 'GAME_NOT_ACTIVE');
      const answerAfter = await post(`/v1/games/${game.id}/draw/${offer.id}`, b, { accept: true });
      assert.equal(answerAfter.status, 409);
      assert.equal(answerAfter.body.error.code, 'GAME_NOT_ACTIVE');
    });
  });
});
