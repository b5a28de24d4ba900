import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { createLogger } from '../../src/logger.ts';

export type TestDatabase = { url: string; serverUrl: string; drop: () => Promise<void> };

/**
 * A fresh, empty database for this test run: on the server of DATABASE_URL when set (CI), else
 * on an embedded PostgreSQL kept in .test-data/. `createDatabase` makes further empty ones.
 */
export async function freshDatabase(): Promise<TestDatabase> {
  let serverUrl = process.env.DATABASE_URL;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (!serverUrl) {
    const embedded = await startEmbeddedPostgres(path.resolve('.test-data/pg'), createLogger('warn'));
    serverUrl = embedded.url;
    stopEmbedded = embedded.stop;
  }
  const db = await createDatabase(serverUrl);
  return {
    url: db.url,
    serverUrl,
    drop: async () => {
      await db.drop();
      await stopEmbedded?.();
    },
  };
}

export async function createDatabase(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `chess_test_${Date.now()}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * A migrated database of its own, with no service attached: tests of the layers below HTTP
 * use it so that the running service's background work (the sweeper) cannot touch their rows.
 */
export async function isolatedDatabase(): Promise<{ pool: import('../../src/db/pool.ts').Pool; drop: () => Promise<void> }> {
  const { testService } = await import('./service.ts');
  const { db } = await testService();
  const { createPool } = await import('../../src/db/pool.ts');
  const { migrate } = await import('../../src/db/migrate.ts');
  const created = await createDatabase(db.serverUrl);
  const pool = createPool(created.url, 5);
  await migrate(pool);
  return {
    pool,
    drop: async () => {
      await pool.end();
      await created.drop();
    },
  };
}
