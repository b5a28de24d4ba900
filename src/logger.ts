import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { pid: process.pid },
    redact: { paths: ['req.headers.authorization', '*.password', '*.token', '*.refresh_token'], remove: true },
  });
}
