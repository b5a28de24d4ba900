import assert from 'node:assert/strict';
import { createPool } from '../../src/db/pool.ts';
import { testService } from '../helpers/service.ts';

describe('the connection pool', () => {
  it('survives a checked-out connection cut by the server (PostgreSQL restarting under a transaction)', async () => {
    const { db } = await testService();
    const pool = createPool(db.url, 2);
    try {
      const client = await pool.connect();
      const pid = (client as unknown as { processID: number }).processID;
      const ended = new Promise((resolve) => client.once('end', resolve));
      // Another session ends this one, as a PostgreSQL restart ends them all. Without a listener
      // node-postgres's 'error' on the client would be an uncaught exception.
      await pool.query('SELECT pg_terminate_backend($1)', [pid]);
      await ended;
      await assert.rejects(client.query('SELECT 1'));
      client.release(new Error('connection lost'));
      assert.equal((await pool.query('SELECT 1 AS one')).rows[0].one, 1, 'the pool serves on a new connection');
    } finally {
      await pool.end();
    }
  });
});
