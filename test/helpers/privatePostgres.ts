import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareEmbeddedCluster } from '../../src/db/embedded.ts';
import { startCluster, type RunningPostgres } from '../../src/db/postgresProcess.ts';
import { createLogger } from '../../src/logger.ts';
import { freePort } from '../../src/util/net.ts';

export type PrivatePostgres = {
  /** Its `postgres` database (the service migrates it). */
  url: string;
  port: number;
  /** Stops the server (fast shutdown: every session is ended, as in a restart). */
  stop: () => Promise<void>;
  start: () => Promise<void>;
  /** Stops it if running and deletes its files. */
  destroy: () => Promise<void>;
};

/**
 * A PostgreSQL server of the test's own (the service's embedded one, in a temporary directory, on
 * a fixed free port), so a test can stop and start it without disturbing the machine's server and
 * every other test on it. It is made the way the service makes its own, so it runs wherever
 * `npm start` does: as root from a clone the postgres user cannot enter, too.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chess-private-pg-'));
  chmodSync(dir, 0o755); // as root, the cluster runs as the postgres user: its data stays here
  const log = createLogger('silent');
  const cluster = await prepareEmbeddedCluster(path.join(dir, 'data'), log);
  const port = await freePort();
  // TCP only, as a PostgreSQL on another machine is reached; its files need not survive a crash.
  const start = () => startCluster(cluster.bin, cluster.dir, port, cluster.owner, log, { settings: { fsync: 'off' } });
  let server: RunningPostgres | undefined = await start();
  return {
    url: `postgres://postgres:${encodeURIComponent(cluster.password)}@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => {
      await server?.stop();
      server = undefined;
    },
    start: async () => {
      server = await start();
    },
    destroy: async () => {
      await server?.stop().catch(() => {});
      server = undefined;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
