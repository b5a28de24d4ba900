import assert from 'node:assert/strict';
import pg from 'pg';
import { postData, startServiceProcess } from '../support/process.ts';
import { createDatabase } from '../support/database.ts';
import { testService } from '../helpers/service.ts';
import { NdjsonClient } from '../helpers/ndjson.ts';
import { WsClient } from '../helpers/ws.ts';

/** `npm start`'s process, as an operator runs it, stopped with SIGTERM. */
describe('SIGTERM drain', function () {
  this.timeout(40_000);

  it('stops accepting, releases its live games with clocks booked, and exits 0 within 10 s', async () => {
    const { db: harness } = await testService();
    const db = await createDatabase(harness.serverUrl);
    const { child, port, base: origin, exited } = await startServiceProcess(db.url);
    try {
      const base = `${origin}/v1`;
      const post = (p: string, body: unknown, token?: string) => postData(base, p, body, token);
      const signup = (n: string) => post('/auth/signup', { email: `${n}@example.com`, password: 'drain-test-1', username: n });
      const a = await signup(`drain_a${port}`);
      const b = await signup(`drain_b${port}`);
      const game = await post(
        '/games',
        { type: 'challenge', opponent_id: b.user.id, time_control: 'blitz', initial_time: 300, increment: 0, color: 'white' },
        a.session.access_token,
      );
      await post(`/games/${game.id}/accept`, {}, b.session.access_token);
      await post(`/games/${game.id}/moves`, { from: 'e2', to: 'e4' }, a.session.access_token);
      const spectator = await WsClient.open(`ws://127.0.0.1:${port}/v1/games/${game.id}/stream`);
      await spectator.next('state');
      // The HTTP forms of the stream and the user channel (DESIGN 2.12) hold their connections open too.
      const ndSpectator = await NdjsonClient.open(`${base}/games/${game.id}/stream`);
      await ndSpectator.next('state');
      const ndEvents = await NdjsonClient.open(`${base}/stream/events`, { authorization: `Bearer ${a.session.access_token}` });
      assert.equal(ndEvents.status, 200);

      const started = Date.now();
      child.kill('SIGTERM');
      assert.equal((await spectator.closed).code, 1012, 'stream sockets are told the service restarts');
      for (const s of [ndSpectator, ndEvents]) {
        assert.equal((await s.next('error')).code, 'SERVICE_UNAVAILABLE', 'HTTP streams are told so in their last line');
        assert.equal(await s.ended, 'complete');
      }
      assert.equal(await exited, 0);
      assert.ok(Date.now() - started < 10_000);

      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query('SELECT status, move_count, host, lease_expires_at FROM games WHERE id = $1', [game.id]);
      await client.end();
      assert.deepEqual(rows[0], { status: 'active', move_count: 1, host: null, lease_expires_at: null });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
      await db.drop();
    }
  });
});
