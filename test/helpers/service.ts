import '../../src/polyfills.ts';
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startService, type RunningService } from '../../src/server.ts';
import { freshDatabase, type TestDatabase } from '../support/database.ts';
import { ShiftedClock } from './clock.ts';
import { MailCatcher } from './smtp.ts';

/**
 * One real service per test process (Colyseus's matchmaker is a process-wide singleton), booted
 * on first use: a fresh database, Redis when REDIS_URL is set, a real SMTP server for mail.
 * Short lifetimes come from the environment, as an operator would set them.
 */
export const TEST_ENV = {
  CHALLENGE_TTL_SECONDS: '2',
  SEEK_TTL_SECONDS: '2',
  FIRST_MOVE_SECONDS: '3',
  DRAW_OFFER_TTL_SECONDS: '2',
  SEEK_POOL_IDLE_SECONDS: '1',
  TOURNAMENT_MIN_MINUTES: '1',
  // The shared service analyses nothing: engines searching every game the suite finishes would
  // load the machine. Analysis tests run their own workers (test/workers/analysis.test.ts) or
  // processes (test/system/analysisProcess.test.ts).
  ANALYSIS_WORKERS: '0',
  // A client that stops reading is hung up on after this: long enough for the export tests that
  // pause a client on purpose and read on, short enough to wait for in the test of the deadline.
  EXPORT_IDLE_SECONDS: '5',
  // Apart, so that a test can fill an address's share without filling the node.
  EXPORTS_PER_NODE: '3',
  EXPORTS_PER_ADDRESS: '2',
} as const;

/** `clock`: the service's time, wall time unless a test skips it forward (and resets it). */
type Harness = { service: RunningService; mail: MailCatcher; db: TestDatabase; config: Config; clock: ShiftedClock };

// Kept on globalThis, not in a module variable: should this file ever be loaded twice (mocha
// loads tests through tsx's CommonJS hook, a dynamic import() goes through the ESM loader),
// both copies still share one service instead of booting a second one.
const HARNESS = Symbol.for('chess-service.test-harness');
const shared = globalThis as { [HARNESS]?: Promise<Harness> };

export function testService(): Promise<Harness> {
  return (shared[HARNESS] ??= boot());
}

async function boot(): Promise<Harness> {
  const db = await freshDatabase();
  const mail = new MailCatcher();
  const smtpPort = await mail.start();
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: db.url,
    REDIS_URL: process.env.REDIS_URL,
    DATA_DIR: `.test-data/run-${process.pid}`,
    JWT_SECRET: randomBytes(32).toString('hex'),
    BCRYPT_COST: '4',
    SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    PUBLIC_URL: 'http://chess.test',
    TRUST_PROXY: 'true',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    ...TEST_ENV,
  });
  if (config.redisUrl) {
    // Tests own the Redis database named in REDIS_URL: start from an empty one.
    const { Redis } = await import('ioredis');
    const r = new Redis(config.redisUrl);
    await r.flushdb();
    await r.quit();
  }
  const clock = new ShiftedClock();
  const service = await startService(config, createLogger(config.logLevel), clock);
  return { service, mail, db, config, clock };
}

export const mochaHooks = {
  async afterAll() {
    if (!shared[HARNESS]) return;
    const { service, mail, db } = await shared[HARNESS];
    await service.stop();
    await mail.stop();
    await db.drop();
  },
};
