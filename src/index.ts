import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { installProcessHandlers } from './processHandlers.ts';
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

// A person at a terminal reads lines; anything else (a file, a collector) gets JSON.
const log = createLogger(config.logLevel, undefined, { pretty: process.stdout.isTTY === true });
const service = await startService(config, log).catch((error) => {
  log.fatal({ err: error }, 'failed to start');
  process.exit(1);
});

// SIGTERM drains: stop accepting, flush pending writes, release games, exit within 10 s. A
// crash (unhandled rejection, uncaught exception) drains the same way, then exits 1.
installProcessHandlers(process, { log, stop: service.stop, exit: (code) => process.exit(code) });
