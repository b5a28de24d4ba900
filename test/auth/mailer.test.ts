import assert from 'node:assert/strict';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { createMailer } from '../../src/auth/mailer.ts';
import { passwordResetMail } from '../../src/auth/mails.ts';
import { createLogger } from '../../src/logger.ts';
import { MailCatcher } from '../helpers/smtp.ts';

const mail = passwordResetMail({ to: 'ann@example.com', username: 'ann', publicUrl: 'http://chess.test', token: 'tok_123-abc', validHours: 1 });

/** A logger that remembers what it was told, to check what is logged. */
function recordingLogger() {
  const lines: string[] = [];
  return { log: createLogger('info', { write: (line: string) => void lines.push(line) }), lines };
}

describe('mailer', () => {
  it('writes each mail to the outbox as a file only its owner can read, and logs the file but never the link', async () => {
    const outboxDir = path.resolve(`.test-data/outbox-${process.pid}-${Date.now()}`);
    const { log, lines } = recordingLogger();
    const mailer = createMailer({ smtpUrl: undefined, from: 'Chess <no-reply@chess.test>', outboxDir, log });
    await mailer.send(mail);
    const files = await readdir(outboxDir);
    assert.equal(files.length, 1);
    // Undo quoted-printable's soft line breaks and escaped '='.
    const eml = (await readFile(path.join(outboxDir, files[0]), 'utf8')).replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    assert.match(eml, /^To: ann@example\.com$/m);
    assert.match(eml, /reset-password\?token=tok_123-abc/);
    assert.equal((await stat(path.join(outboxDir, files[0]))).mode & 0o777, 0o600);
    assert.equal((await stat(outboxDir)).mode & 0o777, 0o700);
    assert.ok(lines.some((l) => l.includes(files[0])), 'the log names the file');
    assert.ok(!lines.some((l) => l.includes('tok_123-abc')), 'the token is not logged');
    await mailer.close();
    await rm(outboxDir, { recursive: true, force: true });
  });

  it('delivers through SMTP, the token in a link under PUBLIC_URL', async () => {
    const catcher = new MailCatcher();
    const port = await catcher.start();
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: 'Chess <no-reply@chess.test>', outboxDir: '/nonexistent', log: createLogger('silent') });
    await mailer.send(mail);
    const received = await catcher.waitFor('ann@example.com');
    assert.equal(MailCatcher.tokenOf(received), 'tok_123-abc');
    assert.match(received.raw, /http:\/\/chess\.test\/reset-password\?token=tok_123-abc/);
    await mailer.close();
    await catcher.stop();
  });

  it('neither throws nor hangs when the SMTP server is down, and logs the failure', async () => {
    // A port that refuses connections: bind one, then close it.
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const { log, lines } = recordingLogger();
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, from: 'x@chess.test', outboxDir: '/nonexistent', log });
    await mailer.send(mail);
    assert.ok(lines.some((l) => l.includes('mail could not be sent')));
    await mailer.close();
  });
});
