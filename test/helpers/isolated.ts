import { migrate } from '../../src/db/migrate.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { createDatabase } from '../support/database.ts';
import { testService } from './service.ts';

/**
 * A migrated database of its own, with no service attached: tests of the layers below HTTP
 * use it so that the running service's background work (the sweeper) cannot touch their rows.
 * (Imported statically: a dynamic import() here would load a second copy of the harness
 * beside the one mocha loaded, and boot a second service.)
 */
export async function isolatedDatabase(): Promise<{ pool: Pool; drop: () => Promise<void> }> {
  const { db } = await testService();
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
