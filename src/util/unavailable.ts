/**
 * Whether an error says a backing service (PostgreSQL, Redis) cannot be reached right now — it is
 * restarting, refusing connections, or the connection broke — rather than that a request or our
 * code is wrong. Such a failure is answered 503 with Retry-After: the client should come back.
 */
export function isBackendUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; name?: unknown } | undefined;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  // PostgreSQL: class 08 (connection exception), shutting down or starting up (57P01–57P03),
  // too many connections (53300).
  if (/^08...$/.test(code) || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
  // The socket itself.
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code)) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  // node-postgres (a broken or unobtainable connection) and ioredis (a closed connection, a
  // command given up after its retries).
  return (
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed/i.test(message) ||
    e.name === 'MaxRetriesPerRequestError'
  );
}

/** PostgreSQL cancelled the statement at its statement_timeout (SQLSTATE 57014, query_canceled). */
export const isStatementTimeout = (err: unknown): boolean => (err as { code?: unknown } | undefined)?.code === '57014';
