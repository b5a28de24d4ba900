import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger, SECRET_KEYS } from '../src/logger.ts';

/** A logger at trace level that keeps every line it writes. */
function recording() {
  const lines: string[] = [];
  return { log: createLogger('trace', { write: (line: string) => void lines.push(line) }), lines };
}

describe('logger', () => {
  it('never writes a secret, whether logged at the top level, one level down or in request headers', () => {
    const { log, lines } = recording();
    for (const key of SECRET_KEYS) {
      const secret = `s3cr3t-${key}-value`;
      log.info({ [key]: secret, kept: `top-${key}` }, 'top');
      log.info({ mail: { [key]: secret, kept: `nested-${key}` } }, 'nested');
      log.error({ req: { headers: { [key]: secret } }, kept: `headers-${key}` }, 'headers');
      const written = lines.join('\n');
      assert.ok(!written.includes(secret), `${key} was written: ${written}`);
      assert.ok(written.includes(`top-${key}`) && written.includes(`nested-${key}`) && written.includes(`headers-${key}`), 'the rest of the line is kept');
    }
  });

  it('keeps the mailer, the session and the config secrets it is most likely to meet out of the log', () => {
    const { log, lines } = recording();
    log.info({ to: 'ann@example.com', link: 'http://chess.test/reset-password?token=abc123' }, 'mail written to outbox');
    log.info({ config: { jwtSecret: 'k'.repeat(40), smtpUrl: 'smtp://user:pw@mail', databaseUrl: 'postgres://u:pw@db/x' } }, 'boot');
    log.warn({ refresh_token: 'rt-xyz', password: 'hunter2-9' }, 'body');
    const written = lines.join('\n');
    for (const leaked of ['abc123', 'kkkkkkkk', 'user:pw', 'u:pw', 'rt-xyz', 'hunter2']) assert.ok(!written.includes(leaked), leaked);
    assert.match(written, /ann@example\.com/);
  });

  it('writes readable lines for a terminal (pretty), still without secrets', () => {
    const lines: string[] = [];
    const terminal = new Writable({ write: (chunk, _encoding, done) => void (lines.push(String(chunk)), done()) });
    const log = createLogger('info', terminal, { pretty: true });
    log.info({ port: 2567, token: 's3cr3t-token' }, 'listening on http://localhost:2567');
    const written = lines.join('');
    assert.match(written, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening on http:\/\/localhost:2567\n/);
    assert.match(written, /port: 2567/);
    assert.ok(!written.includes('s3cr3t'));
    assert.ok(!written.trimStart().startsWith('{'), 'not JSON');
  });
});
