import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processNodes, storedGame } from '../helpers/cluster.ts';
import { until } from '../helpers/poll.ts';
import { postData, requestJson, startGameOverApi } from '../support/process.ts';

const SILENT_ENGINE = path.resolve(import.meta.dirname, '../fixtures/engines/silent.mjs');

/**
 * DESIGN 2.14: the computer's moves never delay other games' moves. The node's only engine is one
 * that takes a search and never ends it (test/fixtures/engines/silent.mjs); while it "thinks"
 * about the computer's first move, two people play a game on the same node.
 */
describe('The computer beside people (real processes)', function () {
  this.timeout(120_000);
  const cluster = processNodes();
  let dir: string | undefined;
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("plays people's moves while the computer's engine is stuck in a search", async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'silent-engine-'));
    const log = path.join(dir, 'commands.log');
    const node = await cluster.start({
      env: { COMPUTER_ENGINES: '1', STOCKFISH_PATH: SILENT_ENGINE, SILENT_ENGINE_LOG: log, ANALYSIS_WORKERS: '0' },
    });
    const api = `${node.base}/v1`;
    const tag = `ci${Date.now() % 1e6}`;
    const person = await postData(api, '/auth/signup', { email: `${tag}@example.com`, password: 'process-test-1', username: tag });
    const computerGame = await postData(
      api,
      '/games',
      { type: 'computer', level: 8, time_control: 'rapid', initial_time: 900, increment: 0, color: 'black' },
      person.session.access_token,
    );
    assert.equal(computerGame.white_player.username, 'stockfish-8');
    // The engine has been asked for White's first move: it is searching, and will not stop.
    await until('the engine’s search', async () => {
      const sent = readFileSync(log, { encoding: 'utf8', flag: 'a+' }); // empty until the engine writes
      return /^go /m.test(sent) || undefined;
    }, { ms: 30_000, everyMs: 50 });

    const people = await startGameOverApi(api, `p${tag}`);
    const line = ['e2e4', 'e7e5', 'g1f3', 'b8c6', 'f1c4', 'g8f6', 'd2d3', 'f8c5', 'c2c3', 'd7d6'];
    for (const [ply, uci] of line.entries()) {
      const mover = ply % 2 === 0 ? people.white : people.black;
      const res = await requestJson(api, 'POST', `/games/${people.id}/moves`, { from: uci.slice(0, 2), to: uci.slice(2, 4) }, mover.session.access_token);
      assert.equal(res.status, 200, `ply ${ply + 1} (${uci}): ${res.status} ${JSON.stringify(res.body)}`);
    }
    assert.equal((await storedGame(cluster.dbUrl, people.id)).move_count, line.length);
    // All the while the computer's search went on: its game has not moved.
    const stuck = await requestJson(api, 'GET', `/games/${computerGame.id}`, undefined, person.session.access_token);
    assert.equal(stuck.body.data.status, 'active');
    assert.equal(stuck.body.data.move_count, 0);
  });
});
