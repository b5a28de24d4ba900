import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '../../src/util/net.ts';

export type PrivateRedis = {
  url: string;
  port: number;
  /** Stops the server without saving (every key, listing and subscription is gone, as after a crash). */
  stop: () => Promise<void>;
  start: () => Promise<void>;
  destroy: () => Promise<void>;
};

/**
 * A `redis-server` of the test's own on a fixed free port, with no persistence, so a test can
 * restart it without touching the machine's Redis. Undefined when the binary is not installed.
 */
export async function startPrivateRedis(): Promise<PrivateRedis | undefined> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    let spawnError: Error | undefined;
    started.once('error', (err) => (spawnError = err));
    child = started;
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {}); // refused until the server listens
    try {
      for (let i = 0; ; i++) {
        const up = await probe.connect().then(() => probe.ping()).then(() => true, () => false);
        if (up) break;
        if (spawnError) throw spawnError;
        if (started.exitCode !== null || i > 100) throw new Error('redis-server did not start');
        probe.disconnect();
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      probe.disconnect();
    }
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    running.kill('SIGKILL');
    await exited;
  };
  try {
    await start();
  } catch (error) {
    await stop();
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { url: `redis://127.0.0.1:${port}/0`, port, stop, start, destroy: stop };
}
