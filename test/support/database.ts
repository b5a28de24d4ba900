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
  await dropStaleDatabases(serverUrl);
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
 * Test databases are dropped after their run; a run that was killed leaves its own behind.
 * Their names carry their creation time, so those over an hour old are dropped here.
 */
async function dropStaleDatabases(serverUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const { rows } = await admin.query(`SELECT datname FROM pg_database WHERE datname ~ '^chess_test_[0-9]+_[0-9a-f]+$'`);
    for (const { datname } of rows) {
      const createdAt = Number(datname.split('_')[2]);
      if (Date.now() - createdAt > 3600_000) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => {});
    }
  } finally {
    await admin.end();
  }
}
