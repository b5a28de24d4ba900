import pg from 'pg';
import { withTransaction, type Pool, type Queryable } from './pool.ts';

/**
 * The tables whose rows a node leases (`host`, `host_epoch`, `lease_expires_at`), each with the
 * condition that keeps the lookup of a node's leases on an index of live rows. A node found dead
 * loses its leases in every one of them at once.
 */
export const LEASED_TABLES: readonly { table: string; live: string }[] = [
  { table: 'games', live: `status = 'active'` },
  { table: 'seek_pools', live: 'true' },
  { table: 'tournaments', live: `status = 'running'` },
];

// One-key advisory locks share their space with the migrations' constant: a hashed, prefixed
// id keeps the nodes' keys apart from it and from any other hashed name (friends: 'friends:').
const NODE_KEY = (param: string) => `hashtextextended('chess-node:' || ${param}, 0)`;

/**
 * The connection a node holds its lock on: its own, outside the pool (a pooled connection is
 * shared and recycled, and a session lock lives exactly as long as its session). Keepalive makes
 * a dead peer on the far side of a broken network show up as an error instead of silence.
 */
export async function connectNodeSession(databaseUrl: string, onLost: (session: pg.Client, err?: Error) => void): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    application_name: 'chess-node',
    keepAlive: true,
    keepAliveInitialDelayMillis: 5_000,
    query_timeout: 5_000,
  });
  let lost = false;
  const lose = (err?: Error) => {
    if (lost) return;
    lost = true;
    onLost(client, err);
  };
  client.on('error', lose);
  client.on('end', () => lose());
  await client.connect();
  return client;
}

/** Takes this node's own lock on its session; false when another session holds it. */
export async function lockNode(session: Queryable, id: string): Promise<boolean> {
  const { rows } = await session.query(`SELECT pg_try_advisory_lock(${NODE_KEY('$1')}) AS locked`, [id]);
  return rows[0].locked;
}

export async function unlockNode(session: Queryable, id: string): Promise<void> {
  await session.query(`SELECT pg_advisory_unlock(${NODE_KEY('$1')})`, [id]);
}

/** This node's row (again, if another node removed it while this one's session was down). */
export async function registerNode(db: Queryable, id: string, address: string | null): Promise<void> {
  await db.query('INSERT INTO nodes (id, address) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [id, address]);
}

export async function deregisterNode(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM nodes WHERE id = $1', [id]);
}

/**
 * Every registered node, and for each other node whether this session took its lock (`taken`):
 * a free lock belongs to a node whose session ended (the process died, or lost its database).
 * With `judge` false no lock is tried. The CASE keeps this node's own key out of the attempt (the
 * lock is re-entrant within a session: trying it would succeed).
 */
export async function pollNodes(session: Queryable, self: string, judge: boolean): Promise<{ id: string; taken: boolean }[]> {
  const { rows } = await session.query(
    `SELECT id, CASE WHEN id = $1 OR NOT $2 THEN false ELSE pg_try_advisory_lock(${NODE_KEY('id')}) END AS taken FROM nodes`,
    [self, judge],
  );
  return rows.map((r) => ({ id: r.id as string, taken: r.taken as boolean }));
}

/**
 * Ends a dead node's leases in every leased table and removes its row, in one transaction; its
 * rows are then free for any node to take (with a new epoch, which fences the old holder out).
 * Returns how many leases each table lost.
 */
export async function endLeasesOf(pool: Pool, id: string): Promise<Record<string, number>> {
  return withTransaction(pool, async (tx) => {
    const ended: Record<string, number> = {};
    for (const { table, live } of LEASED_TABLES) {
      const { rowCount } = await tx.query(
        `UPDATE ${table} SET lease_expires_at = NULL WHERE host = $1 AND lease_expires_at IS NOT NULL AND ${live}`,
        [id],
      );
      ended[table] = rowCount ?? 0;
    }
    await tx.query('DELETE FROM nodes WHERE id = $1', [id]);
    return ended;
  });
}
