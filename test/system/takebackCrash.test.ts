import assert from 'node:assert/strict';
import { kill9, processNodes, queryRow } from '../helpers/cluster.ts';
import { postData, requestJson, startGameOverApi } from '../support/process.ts';

/**
 * An acknowledged takeback survives its node killed with SIGKILL right after the answer: the
 * node started in its place rebuilds the game from PostgreSQL as the takeback left it, and play
 * goes on at the freed plies (DESIGN 2.11; real processes).
 */
describe('Takeback across kill -9 (real processes)', function () {
  this.timeout(120_000);
  const cluster = processNodes();
  const start = cluster.start;

  it('keeps an accepted takeback whole when its node is killed after answering it', async () => {
    const first = await start();
    const base = `${first.base}/v1`;
    const { id, white, black } = await startGameOverApi(base, `tb${Date.now() % 1e6}`);
    const [wt, bt] = [white.session.access_token, black.session.access_token];
    for (const [i, uci] of ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4'].entries()) {
      await postData(base, `/games/${id}/moves`, { from: uci.slice(0, 2), to: uci.slice(2, 4) }, i % 2 === 0 ? wt : bt);
    }
    const { takeback } = await postData(base, `/games/${id}/takeback`, {}, wt);
    const accepted = await postData(base, `/games/${id}/takeback/${takeback.id}`, { accept: true }, bt);
    assert.deepEqual([accepted.takeback.status, accepted.game.move_count], ['accepted', 4]);
    await kill9(first);

    const second = await start({ port: first.port });
    const detail = await requestJson(`${second.base}/v1`, 'GET', `/games/${id}`, undefined, wt);
    assert.equal(detail.status, 200);
    assert.deepEqual(
      [detail.body.data.move_count, detail.body.data.pgn, detail.body.data.fen, detail.body.data.current_turn],
      [4, '1. e4 e5 2. Nf3 Nc6', accepted.game.fen, 'white'],
    );
    const move = await requestJson(`${second.base}/v1`, 'POST', `/games/${id}/moves`, { from: 'f1', to: 'b5' }, wt);
    assert.equal(move.status, 200, JSON.stringify(move.body));
    assert.equal(move.body.data.game.move_count, 5);
    const log = await queryRow(cluster.dbUrl, `SELECT string_agg(ply || '.' || san, ' ' ORDER BY ply) AS live,
       (SELECT string_agg(ply || '.' || san, ' ') FROM taken_back_moves WHERE game_id = $1) AS taken_back
       FROM game_moves WHERE game_id = $1`, [id]);
    assert.deepEqual(log, { live: '1.e4 2.e5 3.Nf3 4.Nc6 5.Bb5', taken_back: '5.Bc4' });
  });
});
