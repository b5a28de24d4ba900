import assert from 'node:assert/strict';
import { NdjsonClient } from '../helpers/ndjson.ts';
import { watchingService } from '../helpers/watching.ts';
import { WsClient } from '../helpers/ws.ts';

const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const AFTER_E4 = 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1';
const AFTER_D4 = 'rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1';

/** A message without its `ts` (the time it was made: a latecomer's `featured` is made when it joins). */
const untimed = ({ ts, ...rest }: Record<string, any>) => rest;

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

    it("shows a game against the computer, unrated, with the bot's title BOT on its player object", async () => {
      const game = await w.computer(1800, 3);
      const { body } = await w.get('/games/live');
      assert.deepEqual(body.data.map((g: any) => g.id), [game.id]);
      const [listed] = body.data;
      assert.equal(game.bot.username, 'stockfish-3');
      assert.deepEqual(listed.players, {
        white: { id: game.person.id, username: game.person.username, rating: 1800 },
        black: { ...game.bot, title: 'BOT' },
      });
      assert.equal(listed.rated, false);
    });

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

  describe('the TV of a game against the computer', () => {
    it("shows the bot's title BOT on its player object, on GET /tv and in the feed's featured", async () => {
      const game = await w.computer(2000, 2);
      const players = {
        white: { id: game.person.id, username: game.person.username, rating: 2000 },
        black: { ...game.bot, title: 'BOT' },
      };
      const tv = (await w.get('/tv')).body.data.game;
      assert.deepEqual([tv.id, tv.players, tv.rated], [game.id, players, false]);
      const feed = await NdjsonClient.open(`${w.base}/v1/tv/feed`);
      try {
        const featured = await feed.next('featured');
        assert.deepEqual([featured.game_id, featured.players], [game.id, players]);
      } finally {
        feed.close();
      }
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

    it('sends in each `fen` the time each side has left, in whole seconds, as the game reports it after the move', async () => {
      const game = await w.game(2400, 2400, 5); // 10+5: each move after the clocks start earns its side 5 s
      const feed = await NdjsonClient.open(`${w.base}/v1/tv/feed`);
      try {
        assert.equal((await feed.next('featured')).game_id, game.id);
        let told: any;
        for (const [ply, uci] of ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4'].entries()) {
          const reported = await w.move(game, ply % 2 === 0 ? game.white : game.black, uci);
          told = await feed.next('fen');
          assert.deepEqual(
            [told.last_move, told.wc, told.bc],
            [uci, Math.round(reported.white_time_remaining), Math.round(reported.black_time_remaining)],
            `ply ${ply + 1}`,
          );
        }
        // After Bc4 White has had two increments and Black one (none for the first moves): 610 and 605 less the moves' time.
        assert.ok(told.wc > told.bc && told.bc > 600, JSON.stringify(told));
      } finally {
        feed.close();
      }
    });

    it('sends the same on the realtime channel `tv`, with its channel: featured, fen after each move, the next game at the end', async () => {
      const featured = await w.game(2400, 2300);
      const next = await w.game(2100, 2100);
      const feed = await NdjsonClient.open(`${w.base}/v1/tv/feed`);
      const socket = await WsClient.open(`${w.base.replace('http', 'ws')}/v1/realtime`);
      try {
        socket.send({ type: 'subscribe', channel: 'tv', id: 1 });
        const subscribed = await socket.next('subscribed');
        assert.deepEqual([subscribed.channel, subscribed.id], ['tv', 1]);
        /** The next message of `type` on the feed, and the channel's without its `channel`, which must be `tv`. */
        const both = async (type: string) => {
          const [fromFeed, { channel, ...fromChannel }] = await Promise.all([feed.next(type), socket.next(type as 'featured')]);
          assert.equal(channel, 'tv');
          return [fromFeed, fromChannel as Record<string, any>];
        };
        const playersOf = (g: typeof featured, [white, black]: number[]) => ({
          white: { id: g.white.id, username: g.white.username, rating: white },
          black: { id: g.black.id, username: g.black.username, rating: black },
        });

        const [first, firstOnChannel] = await both('featured');
        assert.deepEqual(untimed(first), { type: 'featured', game_id: featured.id, players: playersOf(featured, [2400, 2300]), orientation: 'white', fen: START, last_move: null });
        assert.deepEqual(untimed(firstOnChannel), untimed(first));

        await w.move(featured, featured.white, 'e2e4');
        const [fen, fenOnChannel] = await both('fen');
        assert.deepEqual(untimed(fen), { type: 'fen', game_id: featured.id, fen: AFTER_E4, last_move: 'e2e4', wc: 600, bc: 600 });
        assert.deepEqual(fenOnChannel, fen);

        await w.move(next, next.white, 'd2d4'); // another game's move is not the TV's
        await w.resign(featured);
        const [switched, switchedOnChannel] = await both('featured');
        assert.deepEqual(untimed(switched), { type: 'featured', game_id: next.id, players: playersOf(next, [2100, 2100]), orientation: 'white', fen: AFTER_D4, last_move: 'd2d4' });
        assert.deepEqual(switchedOnChannel, switched);

        await w.resign(next);
        const [none, noneOnChannel] = await both('featured');
        assert.deepEqual(untimed(none), { type: 'featured', game_id: null, players: null, orientation: 'white', fen: START, last_move: null }, 'no game is live now');
        assert.deepEqual(noneOnChannel, none);
      } finally {
        socket.close();
        feed.close();
      }
    });
  });
});
