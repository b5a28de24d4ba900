import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * The environment, parsed once. Nothing else in the service reads process.env:
 * everything it needs arrives through this object, so tests can build their own.
 */
const onOff = z.enum(['on', 'off']);
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const seconds = z.coerce.number().positive();

const EnvSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(2567),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: z.url().optional(),
  PUBLIC_ADDRESS: z.string().optional(),
  DATABASE_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  REDIS_URL: z.url().optional(),
  JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  BCRYPT_COST: z.coerce.number().int().min(4).max(31).default(12),
  SMTP_URL: z.url().optional(),
  MAIL_FROM: z.string().default('Chess <no-reply@chess.localhost>'),
  RATE_LIMITS: onOff.default('on'),
  EMAIL_DOMAIN_CHECK: z.enum(['dns', 'off']).default('dns'),
  WEBHOOKS_ALLOW_PRIVATE: bool.default(false),
  CHALLENGE_TTL_SECONDS: seconds.default(600),
  SEEK_TTL_SECONDS: seconds.default(300),
  FIRST_MOVE_SECONDS: seconds.default(30),
  DRAW_OFFER_TTL_SECONDS: seconds.default(60),
  CLAIM_SECONDS: seconds.default(30),
  GAME_LEASE_SECONDS: seconds.default(15),
  MOVE_COMMIT_WINDOW_MS: z.coerce.number().int().min(0).max(100).optional(),
  /** MOVE_COMMIT_WINDOW_MS's former name (pacing without its exceptions), still read. */
  MOVE_BATCH_INTERVAL_MS: z.coerce.number().int().min(0).max(100).optional(),
  FAILOVER_DETECTION: z.enum(['lock', 'lease']).default('lock'),
  ANALYSIS_WORKERS: z.coerce.number().int().min(0).max(64).default(1),
  ANALYSIS_DEPTH: z.coerce.number().int().min(1).max(40).default(14),
  ANALYSIS_LOCK_SECONDS: seconds.default(60),
  STOCKFISH_PATH: z.string().optional(),
  COMPUTER_ENGINES: z.coerce.number().int().min(0).max(16).default(1),
  COMPUTER_GAMES_PER_USER: z.coerce.number().int().min(1).max(100).default(3),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: z.string().default('off'),
  CORS_ORIGINS: z
    .string()
    .default('*')
    .refine(
      (v) => v.trim() === '*' || v.split(',').every((o) => URL.canParse(o.trim()) && new URL(o.trim()).origin === o.trim()),
      'must be * or a comma-separated list of origins such as https://app.example.com',
    ),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  SESSION_MAX_DAYS: seconds.default(90),
  SESSION_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
  SEEK_POOL_IDLE_SECONDS: seconds.default(10),
  WEBHOOK_TIMEOUT_SECONDS: seconds.default(10),
  WEBHOOK_MAX_PENDING: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  WEBHOOK_IN_FLIGHT_PER_USER: z.coerce.number().int().min(1).max(1000).default(4),
  TOURNAMENT_MIN_MINUTES: z.coerce.number().int().min(1).max(360).default(10),
  FRIEND_REQUEST_COOLDOWN_SECONDS: seconds.default(86_400),
  REALTIME_SOCKETS_PER_ADDRESS: z.coerce.number().int().min(1).default(50),
  REALTIME_SOCKETS_PER_USER: z.coerce.number().int().min(1).default(20),
  EXPORT_IDLE_SECONDS: seconds.default(30),
  EXPORTS_PER_NODE: z.coerce.number().int().min(1).default(2),
  EXPORTS_PER_ADDRESS: z.coerce.number().int().min(1).default(1),
});

export type Config = {
  env: string;
  port: number;
  host: string;
  publicUrl: string;
  /** This process's own host:port as clients reach it (Colyseus seat reservations), when several run. */
  publicAddress: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  redisUrl: string | undefined;
  jwtSecret: string;
  bcryptCost: number;
  smtpUrl: string | undefined;
  mailFrom: string;
  rateLimits: boolean;
  emailDomainCheck: boolean;
  webhooksAllowPrivate: boolean;
  challengeTtlMs: number;
  seekTtlMs: number;
  firstMoveMs: number;
  drawOfferTtlMs: number;
  /** DESIGN 2.11: how long a player who had joined the room must be gone before the opponent may claim. */
  claimMs: number;
  /** How long a node owns a live game without renewing (a dead node's games move after this). */
  gameLeaseMs: number;
  /**
   * How long after a move batch leaves the next one waits for more moves (group commit; 0: it
   * leaves as soon as the previous one is done). Correspondence moves never wait.
   */
  moveCommitWindowMs: number;
  /**
   * How a dead node is noticed: `lock`, its PostgreSQL session lock is free (within a second), or
   * `lease`, its leases lapse (GAME_LEASE_SECONDS; for a database behind a transaction-pooling
   * proxy, where session locks do not hold).
   */
  failoverDetection: 'lock' | 'lease';
  /** Engine processes (one job each) on this node; 0 leaves analysis to other nodes. */
  analysisWorkers: number;
  analysisDepth: number;
  /** How long an analysis claim lasts unrenewed: a dead node's job is retried after this. */
  analysisLockMs: number;
  /** A native UCI engine to run instead of the npm package's WASM Stockfish. */
  stockfishPath: string | undefined;
  /** Engine processes playing the computer's moves in the games this node hosts (apart from analysis's); 0: none here. */
  computerEngines: number;
  /** Active games against the computer one user may have at once. */
  computerGamesPerUser: number;
  logLevel: string;
  /** Express's `trust proxy` value: false, true, a hop count or a list of addresses. */
  trustProxy: boolean | number | string;
  /** Origins a browser app may call the API from: any (`*`), or these. */
  corsOrigins: '*' | string[];
  /** Bearer token /metrics asks for; without one it answers the loopback interface only. */
  metricsToken: string | undefined;
  /** A session ends this long after its login, however often it was refreshed. */
  sessionMaxMs: number;
  /** How long a node trusts a live session it looked up (revocations reach it sooner); 0: never cached. */
  sessionCacheMs: number;
  /** A seek pool with no seek and no socket for this long closes (its room and lease go). */
  seekPoolIdleMs: number;
  /** How long a webhook receiver has to answer (DESIGN 2.7: 10 s). */
  webhookTimeoutMs: number;
  /** Pending deliveries one endpoint may hold; later events are stored failed, not queued. */
  webhookMaxPending: number;
  /** One user's webhook deliveries in flight at once, across the cluster. */
  webhookInFlightPerUser: number;
  /** The shortest arena that may be created (DESIGN 2.10: TOURNAMENT_MIN_MINUTES). */
  tournamentMinMinutes: number;
  /** A user hears of one asker's friend requests at most once in this long (withdrawn and re-sent ones stay quiet). */
  friendRequestCooldownMs: number;
  /** Open stream and realtime sockets one client address may hold on this node (429 past it). */
  realtimeSocketsPerAddress: number;
  /** Stream and realtime sockets one user's tokens may be used on, on this node. */
  realtimeSocketsPerUser: number;
  /** A game export whose client takes nothing written to it for this long ends (its slot and connection go). */
  exportIdleMs: number;
  /** Game exports this node runs at once (429 past it): each takes a share of the CPU the live games need. */
  exportsPerNode: number;
  /** Game exports one client address runs at once on this node, whoever the callers are. */
  exportsPerAddress: number;
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most twelve-factor services.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  const production = e.NODE_ENV === 'production';
  // Production must not fall back to what suits a developer's machine: a generated key in a
  // file, or mail (reset links with live tokens) left in files instead of being delivered.
  const missing = [...(e.JWT_SECRET ? [] : ['JWT_SECRET']), ...(e.SMTP_URL ? [] : ['SMTP_URL'])];
  if (production && missing.length) {
    throw new ConfigError(`Invalid configuration:\n${missing.map((v) => `  ${v}: required when NODE_ENV=production`).join('\n')}`);
  }
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    publicAddress: e.PUBLIC_ADDRESS,
    databaseUrl: e.DATABASE_URL,
    dataDir,
    redisUrl: e.REDIS_URL,
    jwtSecret: e.JWT_SECRET ?? generatedSecret(dataDir),
    bcryptCost: e.BCRYPT_COST,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    rateLimits: e.RATE_LIMITS === 'on',
    emailDomainCheck: e.EMAIL_DOMAIN_CHECK === 'dns',
    webhooksAllowPrivate: e.WEBHOOKS_ALLOW_PRIVATE,
    challengeTtlMs: e.CHALLENGE_TTL_SECONDS * 1000,
    seekTtlMs: e.SEEK_TTL_SECONDS * 1000,
    firstMoveMs: e.FIRST_MOVE_SECONDS * 1000,
    moveCommitWindowMs: e.MOVE_COMMIT_WINDOW_MS ?? e.MOVE_BATCH_INTERVAL_MS ?? 0,
    drawOfferTtlMs: e.DRAW_OFFER_TTL_SECONDS * 1000,
    claimMs: e.CLAIM_SECONDS * 1000,
    gameLeaseMs: e.GAME_LEASE_SECONDS * 1000,
    failoverDetection: e.FAILOVER_DETECTION,
    analysisWorkers: e.ANALYSIS_WORKERS,
    analysisDepth: e.ANALYSIS_DEPTH,
    analysisLockMs: e.ANALYSIS_LOCK_SECONDS * 1000,
    stockfishPath: e.STOCKFISH_PATH,
    computerEngines: e.COMPUTER_ENGINES,
    computerGamesPerUser: e.COMPUTER_GAMES_PER_USER,
    logLevel: e.LOG_LEVEL,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    corsOrigins: e.CORS_ORIGINS.trim() === '*' ? '*' : e.CORS_ORIGINS.split(',').map((o) => o.trim()),
    metricsToken: e.METRICS_TOKEN,
    sessionMaxMs: e.SESSION_MAX_DAYS * 24 * 3600 * 1000,
    sessionCacheMs: e.SESSION_CACHE_SECONDS * 1000,
    seekPoolIdleMs: e.SEEK_POOL_IDLE_SECONDS * 1000,
    webhookTimeoutMs: e.WEBHOOK_TIMEOUT_SECONDS * 1000,
    webhookMaxPending: e.WEBHOOK_MAX_PENDING,
    webhookInFlightPerUser: e.WEBHOOK_IN_FLIGHT_PER_USER,
    tournamentMinMinutes: e.TOURNAMENT_MIN_MINUTES,
    friendRequestCooldownMs: e.FRIEND_REQUEST_COOLDOWN_SECONDS * 1000,
    realtimeSocketsPerAddress: e.REALTIME_SOCKETS_PER_ADDRESS,
    realtimeSocketsPerUser: e.REALTIME_SOCKETS_PER_USER,
    exportIdleMs: e.EXPORT_IDLE_SECONDS * 1000,
    exportsPerNode: e.EXPORTS_PER_NODE,
    exportsPerAddress: e.EXPORTS_PER_ADDRESS,
  };
}

function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'off' || value === 'false') return false;
  if (value === 'on' || value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value; // an address list such as "loopback, 10.0.0.0/8"
}

/** Outside production a missing JWT_SECRET is generated once and kept in DATA_DIR. */
function generatedSecret(dataDir: string): string {
  const file = path.join(dataDir, 'jwt-secret');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(48).toString('base64url');
    // 'wx' fails when another process wrote it first; then theirs wins.
    try {
      writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
      return secret;
    } catch {
      return readFileSync(file, 'utf8').trim();
    }
  }
}
