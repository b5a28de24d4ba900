import assert from 'node:assert/strict';
import { kill9, processNodes, storedGame } from '../helpers/cluster.ts';
import { until } from '../helpers/poll.ts';
import { postData } from '../support/process.ts';

/**
 * The computer's turn in a game whose node died is played where the game is hosted next
 * (DESIGN 2.14): the engine player hears of each game its node comes to host, a rebuilt one too.
 */
describe('The computer after a restart (real processes)', function () {
  this.timeout(120_000);
  const cluster = processNodes({ env: { GAME_LEASE_SECONDS: '60' } });

  it("moves in a game its first node never moved in, once another node hosts it", async () => {
    // A node without computer engines: the game starts there, White (the computer) to move.
    const a = await cluster.start({ env: { COMPUTER_ENGINES: '0' } });
    const tag = `cr${Date.now() % 1e6}`;
    const user = await postData(`${a.base}/v1`, '/auth/signup', { email: `${tag}@example.com`, password: 'process-test-1', username: tag });
    const game = await postData(
      `${a.base}/v1`,
      '/games',
      { type: 'computer', level: 1, time_control: 'rapid', initial_time: 900, increment: 0, color: 'black' },
      user.session.access_token,
    );
    assert.equal(game.status, 'active');
    assert.equal(game.white_player.username, 'stockfish-1');
    assert.equal((await storedGame(cluster.dbUrl, game.id)).move_count, 0);
    await kill9(a);
    // A node with an engine: it takes the dead node's game and the computer plays its first move.
    await cluster.start({ env: { COMPUTER_ENGINES: '1' } });
    const moved = await until('the computer’s first move on the new node', async () => {
      const g = await storedGame(cluster.dbUrl, game.id);
      return g.move_count === 1 ? g : undefined;
    }, { ms: 60_000, everyMs: 200 });
    assert.ok(moved.host, 'hosted by the new node');
  });
});
