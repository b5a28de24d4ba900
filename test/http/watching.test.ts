import assert from 'node:assert/strict';
import { NdjsonClient } from '../helpers/ndjson.ts';
import { watchingService } from '../helpers/watching.ts';
import { WsClient } from '../helpers/ws.ts';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const AFTER_E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';

describe('watching (DESIGN 2.14)', function () {
  this.timeout(30_000);
  const w = watchingService();

  describe('GET /games/live', () => {
    it('lists the active games, the highest average rating first, with players, ratings, time control and position', async () => {
      const middle = await w.game(2000, 2000);
      const high = await w.game(2300, 2100);
      const low = await w.game(1700, 1900);
      await w.move(high, high.white, 'e2e4');
      const { status, body } = await w.get('/games/live');
      assert.equal(status, 200);
      assert.deepEqual(body.data.map((g: any) => g.id), [high.id, middle.id, low.id]);
      const [first, second] = body.data;
      assert.deepEqual(first.players, {
        white: { id: high.white.id, username: high.white.username, rating: 2300 },
        black: { id: high.black.id, username: high.black.username, rating: 2100 },
      });
      assert.equal(first.average_rating, 2200);
      assert.deepEqual([first.time_control, first.initial_time, first.increment, first.rated], ['rapid', 600, 0, true]);
      assert.deepEqual([first.fen, first.last_move, first.move_count], [AFTER_E4, 'e2e4', 1]);
      assert.deepEqual([second.fen, second.last_move, second.move_count], [START, null, 0]);
    });

    it('answers at most `limit` games, 20 unless told', async () => {
      for (const r of [1800, 1900, 2000]) await w.game(r, r);
      const two = await w.get('/games/live?limit=2');
      assert.equal(two.status, 200);
      assert.deepEqual(two.body.data.map((g: any) => g.average_rating), [2000, 1900]);
      assert.equal((await w.get('/games/live')).body.data.length, 3);
    });

    for (const bad of ['0', '101', 'x', '2.5']) {
      it(`refuses limit=${bad} with 400 VALIDATION_ERROR`, async () => {
        const { status, body } = await w.get(`/games/live?limit=${bad}`);
        assert.equal(status, 400);
        assert.equal(body.success, false);
        assert.equal(body.error.code, 'VALIDATION_ERROR');
        assert.ok(body.error.details.limit, JSON.stringify(body.error));
      });
    }

    it('leaves a game out once it has ended', async () => {
      const stays = await w.game(1900, 1900);
      const ends = await w.game(2000, 2000);
      assert.deepEqual((await w.get('/games/live')).body.data.map((g: any) => g.id), [ends.id, stays.id]);
      await w.resign(ends);
      assert.deepEqual((await w.get('/games/live')).body.data.map((g: any) => g.id), [stays.id]);
    });
  });

  describe('GET /tv', () => {
    it('answers {game: null} while no game is live', async () => {
      const { status, body } = await w.get('/tv');
      assert.equal(status, 200);
      assert.deepEqual(body.data, { game: null });
    });

    it('features the game of highest average rating and keeps it until it ends, then the next', async () => {
      const first = await w.game(2000, 2200);
      await w.game(1800, 1800);
      const tv = (await w.get('/tv')).body.data.game;
      assert.equal(tv.id, first.id);
      assert.equal(tv.orientation, 'black', 'from the side of the stronger player');
      assert.equal(tv.players.black.rating, 2200);

      const stronger = await w.game(2500, 2500);
      assert.equal((await w.get('/tv')).body.data.game.id, first.id, 'kept while it is played');
      await w.resign(first);
      assert.equal((await w.get('/tv')).body.data.game.id, stronger.id, 'the next: the highest now');
    });
  });

  describe('the TV feed', () => {
    it('sends featured first, fen after each move, and featured again when the game ends (NDJSON, no token)', async () => {
      const featured = await w.game(2400, 2400);
      const next = await w.game(2100, 2100);
      const feed = await NdjsonClient.open(`${w.base}/v1/tv/feed`);
      try {
        assert.equal(feed.status, 200);
        assert.match(String(feed.res.headers['content-type']), /application\/x-ndjson/);
        const first = await feed.next('featured');
        assert.equal(first.game_id, featured.id);
        assert.deepEqual(first.players.white, { id: featured.white.id, username: featured.white.username, rating: 2400 });
        assert.deepEqual([first.orientation, first.fen, first.last_move], ['white', START, null]);

        await w.move(featured, featured.white, 'e2e4');
        const fen = await feed.next('fen');
        assert.deepEqual([fen.game_id, fen.fen, fen.last_move], [featured.id, AFTER_E4, 'e2e4']);
        assert.deepEqual([fen.wc, fen.bc], [600, 600], 'whole seconds; the clocks start with Black’s first move');

        await w.move(next, next.white, 'd2d4'); // another game's move is not the TV's
        await w.resign(featured);
        const switched = await feed.next('featured');
        assert.equal(switched.game_id, next.id);
        assert.equal(switched.last_move, 'd2d4', 'the position it has now');
      } finally {
        feed.close();
      }
    });

    it('sends the same on the realtime channel `tv`, with its channel', async () => {
      const featured = await w.game(2400, 2300);
      const socket = await WsClient.open(`${w.base.replace('http', 'ws')}/v1/realtime`);
      try {
        socket.send({ type: 'subscribe', channel: 'tv', id: 1 });
        const subscribed = await socket.next('subscribed');
        assert.deepEqual([subscribed.channel, subscribed.id], ['tv', 1]);
        const first = await socket.next('featured');
        assert.deepEqual([first.channel, first.game_id], ['tv', featured.id]);
        await w.move(featured, featured.white, 'e2e4');
        const fen = await socket.next('fen');
        assert.deepEqual([fen.channel, fen.game_id, fen.fen, fen.last_move], ['tv', featured.id, AFTER_E4, 'e2e4']);
        await w.resign(featured);
        const none = await socket.next('featured');
        assert.deepEqual([none.game_id, none.players], [null, null], 'no game is live now');
      } finally {
        socket.close();
      }
    });
  });
});
