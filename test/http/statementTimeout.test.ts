import assert from 'node:assert/strict';
import { createPool } from '../../src/db/pool.ts';
import { route } from '../../src/http/route.ts';
import { startApp } from '../helpers/app.ts';
import { testService } from '../helpers/service.ts';

describe('a statement PostgreSQL cancels at its timeout', () => {
  it('is answered 503 SERVICE_UNAVAILABLE with Retry-After, not 500: the database is overloaded, the request may be sent again', async () => {
    const { db } = await testService();
    const pool = createPool(db.url, 1, { statementTimeoutMs: 50 });
    const app = await startApp({
      routes: [
        route({
          method: 'get',
          path: '/slow',
          summary: 'waits longer than the statement timeout',
          tags: [],
          auth: 'none',
          hidden: true,
          handler: async () => (await pool.query('SELECT pg_sleep(1)')).rows,
        }),
      ],
    });
    try {
      const res = await fetch(`${app.url}/v1/slow`);
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '1');
      const body = await res.json();
      assert.equal(body.error.code, 'SERVICE_UNAVAILABLE');
    } finally {
      await app.close();
      await pool.end();
    }
  });
});
