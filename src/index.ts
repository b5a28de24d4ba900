import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { startService } from './server.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const log = createLogger(config.logLevel);
const service = await startService(config, log).catch((error) => {
  log.fatal({ err: error }, 'failed to start');
  process.exit(1);
});

// SIGTERM drains: stop accepting, flush pending writes, release games, exit within 10 s.
let signalled = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (signalled) return;
    signalled = true;
    log.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), 10_000).unref();
    service.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
