import assert from 'node:assert/strict';
import { testService } from '../helpers/service.ts';
import { NdjsonClient } from '../helpers/ndjson.ts';
import { createDatabase } from '../support/database.ts';
import { postData, startGameOverApi, startServiceProcess } from '../support/process.ts';
import { heldPost } from './heldPost.ts';

// Lichess's streams at the service's restart (SIGTERM, `npm start`'s process): Lichess's lines have
// no error type, and lichess.org just ends the body when it restarts, so the body ends with no line
// of ours; its clients connect again (lichess-bot: the event stream's reconnection tells every game).

describe("Lichess's streams at the service's restart (DESIGN 2.13)", function () {
  this.timeout(40_000);

  it('end their bodies with no line of ours (no {"type":"error"}), as lichess.org ends them: the event stream, a game stream, a board seek', async () => {
    const { db: harness } = await testService();
    const db = await createDatabase(harness.serverUrl);
    const { child, base, exited } = await startServiceProcess(db.url);
    try {
      const game = await startGameOverApi(`${base}/v1`, `lr${process.pid}`);
      const seeker = await postData(`${base}/v1`, '/auth/signup', { email: `ls${process.pid}@example.com`, password: 'process-test-1', username: `ls${process.pid}` });
      const bearer = (who: { session: { access_token: string } }) => ({ authorization: `Bearer ${who.session.access_token}` });
      const events = await NdjsonClient.open(`${base}/api/stream/event`, bearer(game.white));
      assert.equal((await events.next('gameStart')).game.id, game.id);
      const board = await NdjsonClient.open(`${base}/api/board/game/stream/${game.id}`, bearer(game.black));
      assert.equal((await board.next('gameFull')).id, game.id);
      const seek = await heldPost(`${base}/api/board/seek`, { ...bearer(seeker), 'content-type': 'application/x-www-form-urlencoded' }, 'time=10&increment=7');
      assert.equal(seek.status, 200);

      child.kill('SIGTERM');
      for (const s of [events, board]) {
        assert.equal(await s.ended, 'complete', 'the body ends');
        assert.deepEqual(s.seen.filter((m) => !['gameStart', 'gameFull'].includes(m.type)), [], 'no line after the opening ones');
      }
      assert.equal(await seek.ended, 'complete');
      assert.equal((await seek.body).trim(), '', 'blank lines at most');
      assert.equal(await exited, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
      await db.drop();
    }
  });
});
