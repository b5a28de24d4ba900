import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

/**
 * Keys whose values are secrets: tokens, passwords, keys, mail links (they carry a token), seat
 * reservations (they admit to a room) and connection URLs (they may hold a password). Removed
 * from every log line, at the top level and one level down (`{err}`, `{mail: {...}}`, `{req}`).
 */
export const SECRET_KEYS = [
  'password',
  'token',
  'access_token',
  'refresh_token',
  'accessToken',
  'refreshToken',
  'reconnectionToken',
  '_authToken',
  'secret',
  'jwtSecret',
  'authorization',
  'cookie',
  'link',
  'reservation',
  'smtpUrl',
  'databaseUrl',
  'redisUrl',
] as const;

const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.headers.${k}`),
];

/**
 * JSON lines (for log collectors), or with `pretty` (stdout is a terminal) one coloured, readable
 * line per entry. Secrets are removed before either is written.
 */
export function createLogger(level: string, destination?: DestinationStream, o: { pretty?: boolean } = {}): Logger {
  const options = { level, base: { pid: process.pid }, redact: { paths: REDACT_PATHS, remove: true } };
  if (o.pretty) {
    const stream = pretty({ colorize: !destination, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true, ...(destination ? { destination } : {}) });
    return pino(options, stream);
  }
  return destination ? pino(options, destination) : pino(options);
}
