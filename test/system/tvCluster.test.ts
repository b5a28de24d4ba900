import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { twoNodesOverRedis } from '../helpers/cluster.ts';
import { NdjsonClient } from '../helpers/ndjson.ts';
import { postData, requestJson, type ServiceProcess } from '../support/process.ts';

/**
 * DESIGN 2.14: every node features the same game and keeps it until it ends, wherever its moves
 * are made and whichever node is asked. Needs REDIS_URL (the moves reach the other node's TV
 * over the event bus).
 */
describe('the TV across two nodes (REDIS_URL)', function () {
  this.timeout(60_000);
  const cluster = twoNodesOverRedis('TV');

  const api = (node: ServiceProcess) => `${node.base}/v1`;
  async function player(node: ServiceProcess, rating: number) {
    const username = `tv${randomBytes(5).toString('hex')}`;
    const data = await postData(api(node), '/auth/signup', { email: `${username}@example.com`, password: 'cluster-test-1', username });
    const client = new pg.Client({ connectionString: cluster.dbUrl });
    await client.connect();
    try {
      await client.query(`INSERT INTO user_ratings (user_id, category, rating, rd, volatility) VALUES ($1, 'rapid', $2, 60, 0.06)`, [data.user.id, rating]);
    } finally {
      await client.end();
    }
    return { id: data.user.id as string, token: data.session.access_token as string };
  }
  async function game(rating: number) {
    const [a, b] = cluster.nodes;
    const [white, black] = [await player(a, rating), await player(b, rating)];
    const created = await postData(api(a), '/games', { type: 'challenge', opponent_id: black.id, time_control: 'rapid', initial_time: 600, increment: 0, color: 'white' }, white.token);
    await postData(api(b), `/games/${created.id}/accept`, {}, black.token);
    return { id: created.id as string, white, black };
  }
  const featuredOn = async (node: ServiceProcess) => (await requestJson(api(node), 'GET', '/tv')).body.data.game?.id;

  it('features one game on both nodes, follows its moves made on either, and moves on together when it ends', async () => {
    const [a, b] = cluster.nodes;
    const first = await game(2000);
    const feed = await NdjsonClient.open(`${b.base}/v1/tv/feed`);
    try {
      assert.equal((await feed.next('featured')).game_id, first.id);
      const stronger = await game(2600);
      assert.deepEqual([await featuredOn(a), await featuredOn(b)], [first.id, first.id], 'kept on both while it is played');

      await postData(api(a), `/games/${first.id}/moves`, { from: 'e2', to: 'e4' }, first.white.token);
      const fen = await feed.next('fen', 10_000);
      assert.deepEqual([fen.game_id, fen.last_move], [first.id, 'e2e4']);

      await postData(api(a), `/games/${first.id}/resign`, {}, first.black.token);
      assert.equal((await feed.next('featured', 10_000)).game_id, stronger.id);
      assert.deepEqual(await Promise.all([featuredOn(a), featuredOn(b)]), [stronger.id, stronger.id]);
      await postData(api(b), `/games/${stronger.id}/resign`, {}, stronger.black.token);
    } finally {
      feed.close();
    }
  });
});
