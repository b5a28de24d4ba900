import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../src/config.ts';

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'chess-config-'));

describe('Configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({ DATA_DIR: tmp() });
    assert.equal(c.port, 2567);
    assert.equal(c.publicUrl, 'http://localhost:2567');
    assert.equal(c.bcryptCost, 12);
    assert.equal(c.rateLimits, true);
    assert.equal(c.challengeTtlMs, 600_000);
    assert.equal(c.seekTtlMs, 300_000);
    assert.equal(c.firstMoveMs, 30_000);
    assert.equal(c.drawOfferTtlMs, 60_000);
    assert.equal(c.claimMs, 30_000);
    assert.equal(c.databaseUrl, undefined);
    assert.equal(c.redisUrl, undefined);
    assert.equal(c.webhookTimeoutMs, 10_000);
    assert.equal(c.webhookMaxPending, 1000);
    assert.equal(c.webhookInFlightPerUser, 4);
  });

  it('takes CLAIM_SECONDS from the environment (how long a player must be gone before a claim)', () => {
    assert.equal(loadConfig({ DATA_DIR: tmp(), CLAIM_SECONDS: '45' }).claimMs, 45_000);
    assert.throws(() => loadConfig({ DATA_DIR: tmp(), CLAIM_SECONDS: '0' }), /CLAIM_SECONDS/);
  });

  it('takes the webhook limits from the environment', () => {
    const c = loadConfig({ DATA_DIR: tmp(), WEBHOOK_MAX_PENDING: '50', WEBHOOK_IN_FLIGHT_PER_USER: '2' });
    assert.deepEqual([c.webhookMaxPending, c.webhookInFlightPerUser], [50, 2]);
    assert.throws(() => loadConfig({ WEBHOOK_MAX_PENDING: '0' }), /WEBHOOK_MAX_PENDING/);
    assert.throws(() => loadConfig({ WEBHOOK_IN_FLIGHT_PER_USER: 'many' }), /WEBHOOK_IN_FLIGHT_PER_USER/);
  });

  it('quiets a re-sent friend request for FRIEND_REQUEST_COOLDOWN_SECONDS (default a day)', () => {
    assert.equal(loadConfig({ DATA_DIR: tmp() }).friendRequestCooldownMs, 86_400_000);
    assert.equal(loadConfig({ DATA_DIR: tmp(), FRIEND_REQUEST_COOLDOWN_SECONDS: '60' }).friendRequestCooldownMs, 60_000);
    assert.throws(() => loadConfig({ FRIEND_REQUEST_COOLDOWN_SECONDS: '-1' }), /FRIEND_REQUEST_COOLDOWN_SECONDS/);
  });

  it('caps realtime sockets per address and per user (REALTIME_SOCKETS_PER_ADDRESS 50, REALTIME_SOCKETS_PER_USER 20)', () => {
    const defaults = loadConfig({ DATA_DIR: tmp() });
    assert.deepEqual([defaults.realtimeSocketsPerAddress, defaults.realtimeSocketsPerUser], [50, 20]);
    const set = loadConfig({ DATA_DIR: tmp(), REALTIME_SOCKETS_PER_ADDRESS: '500', REALTIME_SOCKETS_PER_USER: '5' });
    assert.deepEqual([set.realtimeSocketsPerAddress, set.realtimeSocketsPerUser], [500, 5]);
    assert.throws(() => loadConfig({ REALTIME_SOCKETS_PER_ADDRESS: '0' }), /REALTIME_SOCKETS_PER_ADDRESS/);
    assert.throws(() => loadConfig({ REALTIME_SOCKETS_PER_USER: '2.5' }), /REALTIME_SOCKETS_PER_USER/);
  });

  it('takes the commit window from MOVE_COMMIT_WINDOW_MS (0 to 100 ms, default 0), or from its former name', () => {
    assert.equal(loadConfig({ DATA_DIR: tmp() }).moveCommitWindowMs, 0);
    assert.equal(loadConfig({ DATA_DIR: tmp(), MOVE_COMMIT_WINDOW_MS: '5' }).moveCommitWindowMs, 5);
    assert.equal(loadConfig({ DATA_DIR: tmp(), MOVE_COMMIT_WINDOW_MS: '100' }).moveCommitWindowMs, 100);
    for (const bad of ['101', '-1', '2.5', 'soon']) assert.throws(() => loadConfig({ MOVE_COMMIT_WINDOW_MS: bad }), /MOVE_COMMIT_WINDOW_MS/);
    // MOVE_BATCH_INTERVAL_MS, the pacing it replaced, is still read; the new name wins over it.
    assert.equal(loadConfig({ DATA_DIR: tmp(), MOVE_BATCH_INTERVAL_MS: '10' }).moveCommitWindowMs, 10);
    assert.equal(loadConfig({ DATA_DIR: tmp(), MOVE_BATCH_INTERVAL_MS: '10', MOVE_COMMIT_WINDOW_MS: '0' }).moveCommitWindowMs, 0);
    assert.throws(() => loadConfig({ MOVE_BATCH_INTERVAL_MS: '1000' }), /MOVE_BATCH_INTERVAL_MS/);
  });

  it('takes a DATABASE_URL whose host is a Unix socket directory', () => {
    const url = 'postgres://postgres@%2Fvar%2Frun%2Fpostgresql/chess';
    assert.equal(loadConfig({ DATABASE_URL: url }).databaseUrl, url);
  });

  it('stops on a bad value with a message naming the variable', () => {
    assert.throws(() => loadConfig({ PORT: 'eighty' }), (e: Error) => e instanceof ConfigError && /PORT/.test(e.message));
    assert.throws(() => loadConfig({ RATE_LIMITS: 'sometimes' }), /RATE_LIMITS/);
    assert.throws(() => loadConfig({ DATABASE_URL: 'not a url' }), /DATABASE_URL/);
    assert.throws(() => loadConfig({ JWT_SECRET: 'short' }), /JWT_SECRET/);
  });

  it('requires JWT_SECRET and SMTP_URL in production instead of defaulting them', () => {
    const secret = 'x'.repeat(40);
    assert.throws(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: tmp(), SMTP_URL: 'smtp://mail:25' }), /JWT_SECRET: required/);
    assert.throws(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: tmp(), JWT_SECRET: secret }), /SMTP_URL: required/);
    assert.throws(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: tmp() }), (e: Error) => /JWT_SECRET/.test(e.message) && /SMTP_URL/.test(e.message));
    assert.equal(loadConfig({ NODE_ENV: 'production', DATA_DIR: tmp(), JWT_SECRET: secret, SMTP_URL: 'smtp://mail:25' }).smtpUrl, 'smtp://mail:25');
  });

  it('generates a secret once outside production and keeps it in DATA_DIR', () => {
    const dir = tmp();
    const a = loadConfig({ DATA_DIR: dir });
    const b = loadConfig({ DATA_DIR: dir });
    assert.equal(a.jwtSecret, b.jwtSecret);
    assert.ok(a.jwtSecret.length >= 32);
    assert.equal(readFileSync(path.join(dir, 'jwt-secret'), 'utf8').trim(), a.jwtSecret);
    assert.notEqual(loadConfig({ DATA_DIR: tmp() }).jwtSecret, a.jwtSecret);
  });
});
