import assert from 'node:assert/strict';
import pg from 'pg';
import { isBackendUnavailable } from '../../src/util/unavailable.ts';
import { freePort } from '../../src/util/net.ts';

describe('isBackendUnavailable (a 503, not a 500)', () => {
  it('recognises a PostgreSQL server that refuses connections, as node-postgres reports it', async () => {
    const port = await freePort(); // nothing listens there
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
    const err = await client.connect().then(() => undefined, (e: unknown) => e);
    assert.ok(err, 'the connection was refused');
    assert.equal(isBackendUnavailable(err), true);
  });

  it('recognises PostgreSQL shutting down, starting up and connection exceptions by SQLSTATE', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08003', '53300']) {
      assert.equal(isBackendUnavailable(Object.assign(new Error('x'), { code })), true, code);
    }
  });

  it('recognises a broken connection and ioredis giving a command up', () => {
    assert.equal(isBackendUnavailable(new Error('Connection terminated unexpectedly')), true);
    assert.equal(isBackendUnavailable(new Error('Connection is closed.')), true);
    assert.equal(isBackendUnavailable(Object.assign(new Error('Reached the max retries'), { name: 'MaxRetriesPerRequestError' })), true);
  });

  it('leaves every other error alone (a fault of ours, a constraint, a bad statement)', () => {
    assert.equal(isBackendUnavailable(new TypeError('x is undefined')), false);
    assert.equal(isBackendUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' })), false);
    assert.equal(isBackendUnavailable(Object.assign(new Error('syntax error'), { code: '42601' })), false);
    // A statement cancelled at its timeout is answered 503 too, but as an overload (isStatementTimeout), not an outage.
    assert.equal(isBackendUnavailable(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })), false);
    assert.equal(isBackendUnavailable(undefined), false);
    assert.equal(isBackendUnavailable('a string'), false);
  });
});
