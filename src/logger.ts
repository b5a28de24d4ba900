import { pino, type DestinationStream, type Logger } from 'pino';

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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: { pid: process.pid }, redact: { paths: REDACT_PATHS, remove: true } };
  return destination ? pino(options, destination) : pino(options);
}
