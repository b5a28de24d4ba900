import assert from 'node:assert/strict';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { createPool } from '../../src/db/pool.ts';
import { createDatabase } from '../support/database.ts';
import { testService } from '../helpers/service.ts';

describe('Migrations', () => {
  let db: { url: string; drop: () => Promise<void> };
  beforeEach(async () => {
    const { db: harness } = await testService();
    db = await createDatabase(harness.serverUrl);
  });
  afterEach(() => db.drop());

  it('builds the whole schema on an empty database', async () => {
    const pool = createPool(db.url, 2);
    try {
      const applied = await migrate(pool);
      assert.deepEqual(applied, readMigrations().map((m) => m.name));
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name IN ('users', 'games', 'game_moves')`);
      assert.equal(rows[0].n, 3);
    } finally {
      await pool.end();
    }
  });

  it('applies nothing on an already migrated database', async () => {
    const pool = createPool(db.url, 2);
    try {
      await migrate(pool);
      assert.deepEqual(await migrate(pool), []);
    } finally {
      await pool.end();
    }
  });

  it('lets many processes migrate at once: one applies, the others wait and apply nothing', async () => {
    const pools = Array.from({ length: 4 }, () => createPool(db.url, 2));
    try {
      const results = await Promise.all(pools.map((p) => migrate(p)));
      assert.equal(results.filter((r) => r.length > 0).length, 1);
      assert.equal(results.flat().length, readMigrations().length);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('rolls back a failing migration and reports its name', async () => {
    const pool = createPool(db.url, 2);
    try {
      const broken = [...readMigrations(), { version: 999, name: '999_broken.sql', sql: 'CREATE TABLE x (); SELECT no_such_function();' }];
      await assert.rejects(migrate(pool, broken), /999_broken\.sql/);
      const { rows } = await pool.query(`SELECT to_regclass('x') AS t, (SELECT count(*)::int FROM schema_migrations WHERE version = 999) AS n`);
      assert.deepEqual(rows[0], { t: null, n: 0 });
    } finally {
      await pool.end();
    }
  });
});
