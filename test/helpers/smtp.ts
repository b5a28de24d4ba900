import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export type ReceivedMail = { from: string; to: string[]; raw: string };

/** A real SMTP server in the test process: it receives what the service sends. */
export class MailCatcher {
  readonly mails: ReceivedMail[] = [];
  private readonly events = new EventEmitter();
  private server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const mail = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          // Quoted-printable soft breaks would split long links; join them back.
          raw: Buffer.concat(chunks).toString('utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '='),
        };
        this.mails.push(mail);
        this.events.emit('mail', mail);
        callback();
      });
    },
  });

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Resolves with the next (or an already received) mail to `to` matching `match`. */
  waitFor(to: string, match: (m: ReceivedMail) => boolean = () => true, timeoutMs = 5000): Promise<ReceivedMail> {
    const wanted = (m: ReceivedMail) => m.to.includes(to.toLowerCase()) && match(m);
    const found = this.mails.find(wanted);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.events.off('mail', onMail);
        reject(new Error(`no mail to ${to} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onMail = (m: ReceivedMail) => {
        if (!wanted(m)) return;
        clearTimeout(timer);
        this.events.off('mail', onMail);
        resolve(m);
      };
      this.events.on('mail', onMail);
    });
  }

  /** The `token=` parameter of the first link in a mail. */
  static tokenOf(mail: ReceivedMail): string {
    const m = mail.raw.match(/[?&]token=([A-Za-z0-9_\-]+)/);
    if (!m) throw new Error('mail carries no token link');
    return m[1];
  }
}
