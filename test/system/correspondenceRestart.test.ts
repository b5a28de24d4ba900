import assert from 'node:assert/strict';
import { joinWhenServed, processNodes, queryRow, socketMove } from '../helpers/cluster.ts';
import { postData, requestJson, startGameOverApi } from '../support/process.ts';

const DAY_S = 24 * 3600;

/**
 * A correspondence game outlives the service that hosted it: played over REST and a room, the
 * service stopped (SIGTERM) and started again, the game goes on from PostgreSQL with its
 * per-move period (DESIGN 2.11; real processes).
 */
describe('A correspondence game across a restart of the service (real processes)', function () {
  this.timeout(120_000);
  const cluster = processNodes();
  const start = cluster.start;

  it('is played on after the service restarts: same board, a fresh period for each mover', async () => {
    const first = await start();
    const base = `${first.base}/v1`;
    const { id, white, black } = await startGameOverApi(base, `cr${Date.now() % 1e6}`, { time_control: 'correspondence', days_per_move: 3 });
    const [wt, bt] = [white.session.access_token, black.session.access_token];
    await postData(base, `/games/${id}/moves`, { from: 'e2', to: 'e4' }, wt);
    const room = await joinWhenServed(first, id, bt);
    const answered = new Promise((resolve) => room.onMessage('move:ok', resolve));
    room.onMessage('*', () => {});
    socketMove(room, 'e7e5');
    await answered;
    await room.leave();

    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    const second = await start({ port: first.port });
    const detail = await requestJson(`${second.base}/v1`, 'GET', `/games/${id}`, undefined, wt);
    assert.equal(detail.status, 200);
    const g = detail.body.data;
    assert.deepEqual([g.status, g.time_control, g.days_per_move, g.pgn, g.current_turn], ['active', 'correspondence', 3, '1. e4 e5', 'white']);
    assert.ok(g.white_time_remaining > 3 * DAY_S - 120 && g.white_time_remaining <= 3 * DAY_S, `white has its period: ${g.white_time_remaining}`);

    const move = await requestJson(`${second.base}/v1`, 'POST', `/games/${id}/moves`, { from: 'g1', to: 'f3' }, wt);
    assert.equal(move.status, 200, JSON.stringify(move.body));
    assert.equal(move.body.data.game.move_count, 3);
    assert.ok(move.body.data.game.black_time_remaining > 3 * DAY_S - 120, `black's period starts afresh: ${move.body.data.game.black_time_remaining}`);
    const row = await queryRow(cluster.dbUrl, 'SELECT move_deadline FROM games WHERE id = $1', [id]);
    assert.ok(new Date(row.move_deadline).getTime() > Date.now() + 3 * DAY_S * 1000 - 120_000, 'the deadline is stored for the sweeper');
  });
});
