import pg from 'pg';

// COUNT(*) and BIGINT come back as strings by default; every count we keep fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number.parseFloat(v));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, 'query'>;

/**
 * PostgreSQL cancels any statement of ours still running after this long. Every statement of the
 * service is an index lookup or a small batch that takes milliseconds, so one running for 5 s is
 * stuck (waiting on a lock, a disk, a vacuum) and holding a connection. The server's cancel, unlike
 * a client giving up, guarantees the statement did not land. 5 s is a third of the default game
 * lease (GAME_LEASE_SECONDS=15) and below the move writer's deadline at that lease (half of it,
 * src/db/moveWriter.ts), so a stuck move batch normally fails here first, while the node still owns
 * its games, and the writer's own deadline only catches a connection that stopped answering.
 */
export const STATEMENT_TIMEOUT_MS = 5_000;

export function createPool(
  connectionString: string,
  max = 10,
  o: { /** 0 turns the server-side timeout off. */ statementTimeoutMs?: number } = {},
): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
    statement_timeout: o.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS,
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Nor may a checked-out one (PostgreSQL restarting under a transaction): node-postgres emits
  // 'error' on the client, where the pool listens only while the client is idle. The query in
  // flight fails with the same error, and its caller releases the client, which the pool drops.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** Runs `work` in one transaction on one client; rolls back on any error. */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
