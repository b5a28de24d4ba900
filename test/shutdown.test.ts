import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../src/util/net.ts';
import { createDatabase } from './helpers/database.ts';
import { testService } from './helpers/service.ts';

/** `npm start`'s process, as an operator runs it, stopped with SIGTERM. */
describe('SIGTERM drain', function () {
  this.timeout(40_000);

  it('stops accepting, releases its live games with clocks booked, and exits 0 within 10 s', async () => {
    const { db: harness } = await testService();
    const db = await createDatabase(harness.serverUrl);
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/index.ts'], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: db.url,
        REDIS_URL: '',
        RATE_LIMITS: 'off',
        BCRYPT_COST: '4',
        EMAIL_DOMAIN_CHECK: 'off',
        LOG_LEVEL: 'warn',
        DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'chess-drain-')),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const base = `http://127.0.0.1:${port}/v1`;
      for (let i = 0; ; i++) {
        const up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
        if (up) break;
        if (i > 150) throw new Error('server did not start');
        await new Promise((r) => setTimeout(r, 100));
      }
      const post = async (p: string, body: unknown, token?: string) => {
        const res = await fetch(`${base}${p}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify(body),
        });
        const json = (await res.json()) as any;
        assert.ok(json.success, `${p}: ${JSON.stringify(json)}`);
        return json.data;
      };
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

      const started = Date.now();
      child.kill('SIGTERM');
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
