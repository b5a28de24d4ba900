import assert from 'node:assert/strict';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { createPool } from '../../src/db/pool.ts';
import { createDatabase } from '../support/database.ts';
import { insertUser } from '../support/fixtures.ts';
import { testService } from '../helpers/service.ts';

describe('Migration 022: stored webhook errors become the words an owner is shown', () => {
  let db: { url: string; drop: () => Promise<void> };
  beforeEach(async () => {
    const { db: harness } = await testService();
    db = await createDatabase(harness.serverUrl);
  });
  afterEach(() => db.drop());

  it('rewrites the errors stored before it, naming no internal name or address, and leaves the new words alone', async () => {
    const pool = createPool(db.url, 2);
    try {
      await migrate(pool, readMigrations().filter((m) => m.version < 22));
      const userId = await insertUser(pool);
      const { rows } = await pool.query(`INSERT INTO webhooks (user_id, url, events, secret) VALUES ($1, 'https://example.com/', '{game.move}', 'a-secret-of-16-chars') RETURNING id`, [
        userId,
      ]);
      const stored: Array<[string | null, string | null]> = [
        ['DNS lookup 127.0.0.1(family:4, host:vm) is not allowed. Because, It is private IP address.', 'target address not allowed'],
        ['only https targets are allowed', 'target address not allowed'],
        ['getaddrinfo ENOTFOUND internal.corp', 'host not found'],
        ['connect ECONNREFUSED 10.0.0.7:443', 'connection refused'],
        ['socket hang up', 'connection reset'],
        ['no answer within 10000 ms', 'timed out'],
        ['Hostname/IP does not match certificate', 'TLS error'],
        ['something else at 10.1.2.3', 'request failed'],
        ['timed out', 'timed out'],
        ['every retry failed', 'every retry failed'],
        ['not queued: 1000 deliveries already pending', 'not queued: 1000 deliveries already pending'],
        [null, null],
      ];
      for (const [error] of stored) {
        const d = await pool.query(`INSERT INTO webhook_deliveries (webhook_id, event, body, last_error) VALUES ($1, 'game.move', '{}', $2) RETURNING id`, [rows[0].id, error]);
        await pool.query(`INSERT INTO webhook_attempts (delivery_id, attempt, error, duration_ms) VALUES ($1, 1, $2, 5)`, [d.rows[0].id, error]);
      }
      await migrate(pool);
      const after = await pool.query(`SELECT d.last_error, a.error FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id ORDER BY d.created_at, d.ctid`);
      assert.deepEqual(
        after.rows.map((r) => [r.last_error, r.error]),
        stored.map(([, now]) => [now, now]),
      );
    } finally {
      await pool.end();
    }
  });
});
