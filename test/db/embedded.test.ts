import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { firstBlocked, startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { createLogger } from '../../src/logger.ts';

describe('Embedded PostgreSQL (no DATABASE_URL)', function () {
  this.timeout(60_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chess-embedded-'));
  chmodSync(dir, 0o755); // as root, the postgres user must be able to enter it
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('runs as root with its data inside a 0700 directory: the cluster goes where the postgres user can reach it, and comes back there', async function () {
    if (process.getuid?.() !== 0) this.skip();
    const closed = mkdtempSync(path.join(os.tmpdir(), 'chess-closed-')); // 0700, like `mktemp -d` or /root
    const home = mkdtempSync(path.join(os.tmpdir(), 'chess-home-'));
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    try {
      assert.equal(statSync(closed).mode & 0o777, 0o700);
      const first = await startEmbeddedPostgres(path.join(closed, 'data', 'pg'), log, { home });
      const where = readFileSync(path.join(closed, 'data', 'pg-location'), 'utf8').trim();
      assert.ok(where.startsWith(path.join(home, 'clusters')), where);
      assert.ok(existsSync(path.join(where, 'PG_VERSION')), 'the cluster is there');
      assert.ok(lines.some((l) => l.includes(`cannot enter ${closed}`) && l.includes(where)), 'one line says where, and why');
      const a = new pg.Client({ connectionString: first.url });
      await a.connect();
      await a.query(`CREATE TABLE kept AS SELECT current_user AS who`);
      await a.end();
      await first.stop();

      const second = await startEmbeddedPostgres(path.join(closed, 'data', 'pg'), log, { home });
      const b = new pg.Client({ connectionString: second.url });
      await b.connect();
      assert.deepEqual((await b.query('SELECT who FROM kept')).rows, [{ who: 'postgres' }]);
      await b.end();
      await second.stop();
      assert.equal(statSync(closed).mode & 0o777, 0o700, "the operator's directory is left as it was");
    } finally {
      rmSync(closed, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('names the first directory on the way that a user may not enter', () => {
    const closed = mkdtempSync(path.join(os.tmpdir(), 'chess-blocked-'));
    try {
      mkdirSync(path.join(closed, 'inner'), { mode: 0o755 });
      const stranger = { uid: 65_000, gid: 65_000 };
      assert.equal(firstBlocked(stranger, [path.join(closed, 'inner')]), closed);
      chmodSync(closed, 0o711);
      assert.equal(firstBlocked(stranger, [path.join(closed, 'inner')]), undefined);
      const owner = { uid: statSync(closed).uid, gid: statSync(closed).gid };
      chmodSync(closed, 0o700);
      assert.equal(firstBlocked(owner, [path.join(closed, 'inner')]), undefined, 'its owner may');
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
    // The service's connections come over the cluster's Unix socket (no client address), not TCP.
    assert.deepEqual((await a.query('SELECT inet_client_addr() AS addr')).rows, [{ addr: null }]);
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
