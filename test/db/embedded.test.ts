import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { firstBlocked, packagedBinaries, startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { binariesIn } from '../../src/db/postgresProcess.ts';
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

      // Opened later, DATA_DIR still has its cluster where it was kept, not a new empty one.
      chmodSync(closed, 0o755);
      const third = await startEmbeddedPostgres(path.join(closed, 'data', 'pg'), log, { home });
      const c = new pg.Client({ connectionString: third.url });
      await c.connect();
      assert.deepEqual((await c.query('SELECT who FROM kept')).rows, [{ who: 'postgres' }]);
      await c.end();
      await third.stop();
    } finally {
      rmSync(closed, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('runs as root from an installation the postgres user cannot enter (a clone under /root): a copy of the binaries runs, the data stays in DATA_DIR', async function () {
    if (process.getuid?.() !== 0) this.skip();
    const closed = mkdtempSync(path.join(os.tmpdir(), 'chess-clone-')); // 0700, like /root
    const home = mkdtempSync(path.join(os.tmpdir(), 'chess-home-'));
    const data = mkdtempSync(path.join(os.tmpdir(), 'chess-data-'));
    chmodSync(data, 0o755);
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    try {
      const installed = path.join(closed, 'linux-x64');
      linkedCopy(path.dirname(packagedBinaries().root), installed);
      const db = await startEmbeddedPostgres(path.join(data, 'pg'), log, { home, binaries: binariesIn(path.join(installed, 'native')) });
      const copy = lines.map((l) => JSON.parse(l)).find((l) => l.msg.includes(`cannot enter ${closed}`));
      assert.ok(copy?.binaries.startsWith(path.join(home, 'postgresql-')), lines.join('\n'));
      assert.ok(existsSync(path.join(copy.binaries, 'bin', 'postgres')));
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      assert.deepEqual((await client.query(`SELECT current_setting('data_directory') AS dir`)).rows, [{ dir: path.join(data, 'pg') }]);
      await client.end();
      await db.stop();
      assert.ok(!existsSync(path.join(data, 'pg-location')), 'the cluster was not moved');
      assert.equal(statSync(closed).mode & 0o777, 0o700, "the operator's directory is left as it was");
    } finally {
      for (const d of [closed, home, data]) rmSync(d, { recursive: true, force: true });
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
      // A normal user runs an installation of its own: from a checkout it cannot enter (a clone
      // under /root), it gets one made of hard links.
      const repo = path.resolve(import.meta.dirname, '../..');
      const nobody = { uid: Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' })) };
      let cwd = repo;
      if (firstBlocked(nobody, [repo])) {
        cwd = path.join(home, 'repo');
        mkdirSync(path.join(cwd, 'test'), { recursive: true, mode: 0o755 });
        for (const part of ['package.json', 'tsconfig.json', 'src', 'node_modules', 'test/helpers']) linkedCopy(path.join(repo, part), path.join(cwd, part));
      }
      const out = execFileSync(
        'runuser',
        ['-u', 'nobody', '--', 'env', `HOME=${home}`, process.execPath, '--import', 'tsx', 'test/helpers/embeddedProbe.ts', path.join(home, 'pg')],
        { cwd, encoding: 'utf8', timeout: 30_000 },
      );
      const result = JSON.parse(out.trim().split('\n').pop()!);
      assert.notEqual(result.uid, 0);
      assert.equal(result.one, 1);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

/** `source` copied to `target` as hard links (a plain copy across file systems): same modes, next to no time or space. */
function linkedCopy(source: string, target: string): void {
  try {
    execFileSync('cp', ['-a', '--link', source, target], { stdio: 'pipe' });
  } catch {
    rmSync(target, { recursive: true, force: true });
    execFileSync('cp', ['-a', source, target], { stdio: 'pipe' });
  }
}
