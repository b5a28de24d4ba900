// Started by test/db/embedded.test.ts as another (non-root) user: boots the embedded PostgreSQL
// in the directory given, runs one query, stops it, and prints the user the query ran as.
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { createLogger } from '../../src/logger.ts';

async function main(dir: string) {
  const db = await startEmbeddedPostgres(dir, createLogger('warn'));
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  const { rows } = await client.query('SELECT 1 AS one');
  await client.end();
  await db.stop();
  console.log(JSON.stringify({ uid: process.getuid?.(), one: rows[0].one }));
}

main(process.argv[2]!).then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
