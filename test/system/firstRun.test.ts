import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT_HOME } from '../../src/db/embedded.ts';
import { requestJson, startServiceProcess } from '../support/process.ts';

/**
 * `npm start` on the most common fresh machine: a container, as root, with the data in a
 * directory only root may enter. No DATABASE_URL: the embedded PostgreSQL.
 */
describe('npm start as root on a fresh machine', function () {
  this.timeout(120_000);

  it('serves with DATA_DIR inside a 0700 directory (mktemp -d): the cluster is kept where the postgres user can reach it, one line says where, another where to open', async function () {
    if (process.getuid?.() !== 0) this.skip();
    const closed = mkdtempSync(path.join(os.tmpdir(), 'chess-first-run-'));
    const dataDir = path.join(closed, 'data');
    const lines: string[] = [];
    const proc = await startServiceProcess('', {
      env: { DATA_DIR: dataDir, LOG_LEVEL: 'info' },
      onStdoutLine: (line) => lines.push(line),
      startMs: 90_000, // the first start copies the binaries and runs initdb
    });
    try {
      assert.equal(statSync(closed).mode & 0o777, 0o700);
      const ready = await requestJson(proc.base, 'GET', '/readyz');
      assert.equal(ready.status, 200, JSON.stringify(ready.body));
      assert.equal(ready.body.data.checks.database, 'ok');

      const cluster = readFileSync(path.join(dataDir, 'pg-location'), 'utf8').trim();
      assert.ok(cluster.startsWith(`${ROOT_HOME}/clusters/`), cluster);
      assert.ok(existsSync(path.join(cluster, 'PG_VERSION')));
      const messages = lines.map((l) => JSON.parse(l).msg as string);
      assert.ok(messages.some((m) => m.includes(`cannot enter ${closed}`) && m.includes(cluster)), messages.join('\n'));
      assert.ok(messages.includes(`listening on http://127.0.0.1:${proc.port}`), messages.join('\n'));

      const signup = await requestJson(proc.base, 'POST', '/v1/auth/signup', { email: 'first@example.com', password: 'first-run-1', username: 'first_run' });
      assert.equal(signup.status, 201, JSON.stringify(signup.body));
    } finally {
      proc.child.kill('SIGTERM');
      const code = await proc.exited;
      // Whatever the assertions found, the cluster goes: under ROOT_HOME it would outlive the run.
      if (existsSync(path.join(dataDir, 'pg-location'))) rmSync(readFileSync(path.join(dataDir, 'pg-location'), 'utf8').trim(), { recursive: true, force: true });
      rmSync(closed, { recursive: true, force: true });
      assert.equal(code, 0, 'a clean drain');
    }
  });
});
