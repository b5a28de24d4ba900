import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { createLogger } from '../../src/logger.ts';

describe('Embedded PostgreSQL (no DATABASE_URL)', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chess-embedded-'));
  chmodSync(dir, 0o755); // as root, the postgres user must be able to enter it
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('explains which directory the postgres user cannot enter, when run as root', async function () {
    if (process.getuid?.() !== 0) this.skip();
    const closed = mkdtempSync(path.join(os.tmpdir(), 'chess-closed-'));
    try {
      await assert.rejects(startEmbeddedPostgres(path.join(closed, 'pg'), createLogger('silent')), /cannot enter .*chess-closed-/);
    } finally {
      rmSync(closed, { recursive: true, force: true });
    }
  });

  it('starts a real server, and keeps its data across a restart', async () => {
    const log = createLogger('silent');
    const first = await startEmbeddedPostgres(path.join(dir, 'pg'), log);
    const a = new pg.Client({ connectionString: first.url });
    await a.connect();
    await a.query('CREATE TABLE kept (v text)');
    await a.query(`INSERT INTO kept VALUES ('still here')`);
    const version = await a.query('SHOW server_version_num');
    assert.ok(Number(version.rows[0].server_version_num) >= 150000);
    await a.end();
    await first.stop();

    const second = await startEmbeddedPostgres(path.join(dir, 'pg'), log);
    const b = new pg.Client({ connectionString: second.url });
    await b.connect();
    const { rows } = await b.query('SELECT v FROM kept');
    assert.deepEqual(rows, [{ v: 'still here' }]);
    await b.end();
    await second.stop();
  });

  it('runs as a normal user too', function () {
    // Only root can become another user for this; elsewhere the suite already runs as one.
    if (process.getuid?.() !== 0) this.skip();
    const home = mkdtempSync(path.join(os.tmpdir(), 'chess-nobody-'));
    chmodSync(home, 0o777);
    try {
      const out = execFileSync(
        'runuser',
        ['-u', 'nobody', '--', 'env', `HOME=${home}`, process.execPath, '--import', 'tsx', 'test/helpers/embeddedProbe.ts', path.join(home, 'pg')],
        { encoding: 'utf8', timeout: 30_000 },
      );
      const result = JSON.parse(out.trim().split('\n').pop()!);
      assert.notEqual(result.uid, 0);
      assert.equal(result.one, 1);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
