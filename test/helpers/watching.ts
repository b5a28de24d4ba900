import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDatabase } from '../support/database.ts';
import { postData, requestJson, startServiceProcess, type JsonAnswer, type ServiceProcess } from '../support/process.ts';
import { testService } from './service.ts';

/**
 * DESIGN 2.14's watching tests need a service whose live games are theirs alone: the TV keeps its
 * featured game until it ends, and a game left running by another test file would stay featured
 * for minutes. So a describe() gets `npm start`'s process on a database of its own (the default
 * 30 s for a first move), and players whose ratings it sets (a rating row, as games leave them).
 */
export type WatchPlayer = { id: string; username: string; token: string };
export type WatchGame = { id: string; white: WatchPlayer; black: WatchPlayer };
/** A game against the computer (DESIGN 2.14): the person plays White; `bot` is the level's account as the game names it. */
export type WatchComputerGame = { id: string; person: WatchPlayer; bot: { id: string; username: string; rating: number } };

export function watchingService() {
  let service: ServiceProcess | undefined;
  let db: { url: string; drop: () => Promise<void> } | undefined;
  let pool: pg.Pool | undefined;
  /** The games a test started, each with the token of a player who can resign it. */
  let games: { id: string; token: string }[] = [];
  before(async function () {
    this.timeout(60_000);
    const { db: harness } = await testService();
    db = await createDatabase(harness.serverUrl);
    service = await startServiceProcess(db.url);
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
  });
  // Every game a test started ends with it: the next test starts with nothing live.
  afterEach(async () => {
    for (const g of games.splice(0)) await requestJson(`${service!.base}/v1`, 'POST', `/games/${g.id}/resign`, {}, g.token);
  });
  after(async () => {
    await pool?.end();
    if (service) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    await db?.drop();
  });

  const api = () => `${service!.base}/v1`;
  const kit = {
    get base(): string {
      return service!.base;
    },
    get: (path: string): Promise<JsonAnswer> => requestJson(api(), 'GET', path),
    /** A player with this rapid rating. */
    async player(rating: number): Promise<WatchPlayer> {
      const username = `w${randomBytes(5).toString('hex')}`;
      const data = await postData(api(), '/auth/signup', { email: `${username}@example.com`, password: 'watching-test-1', username });
      await pool!.query(
        `INSERT INTO user_ratings (user_id, category, rating, rd, volatility) VALUES ($1, 'rapid', $2, 60, 0.06)
         ON CONFLICT (user_id, category) DO UPDATE SET rating = excluded.rating`,
        [data.user.id, rating],
      );
      return { id: data.user.id, username, token: data.session.access_token };
    },
    /** An active rapid game (10+0 unless `increment` says otherwise) between players of these ratings, White to move. */
    async game(whiteRating: number, blackRating: number, increment = 0): Promise<WatchGame> {
      const [white, black] = [await kit.player(whiteRating), await kit.player(blackRating)];
      const game = await postData(api(), '/games', { type: 'challenge', opponent_id: black.id, time_control: 'rapid', initial_time: 600, increment, color: 'white' }, white.token);
      await postData(api(), `/games/${game.id}/accept`, {}, black.token);
      const started = { id: game.id as string, white, black };
      games.push({ id: started.id, token: white.token });
      return started;
    },
    /** An active rapid game (10+0) of a person of this rating, White to move, against the computer at `level`. */
    async computer(rating: number, level: number): Promise<WatchComputerGame> {
      const person = await kit.player(rating);
      const game = await postData(api(), '/games', { type: 'computer', level, time_control: 'rapid', initial_time: 600, increment: 0, color: 'white' }, person.token);
      games.push({ id: game.id, token: person.token });
      const { id, username, rating: botRating } = game.black_player;
      return { id: game.id, person, bot: { id, username, rating: botRating } };
    },
    /** A move that must be accepted; returns the game as the answer reports it after the move. */
    async move(g: WatchGame, by: WatchPlayer, uci: string): Promise<any> {
      const answer = await requestJson(api(), 'POST', `/games/${g.id}/moves`, { from: uci.slice(0, 2), to: uci.slice(2, 4) }, by.token);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.data.game;
    },
    async resign(g: WatchGame): Promise<void> {
      const answer = await requestJson(api(), 'POST', `/games/${g.id}/resign`, {}, g.black.token);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
    },
  };
  return kit;
}
