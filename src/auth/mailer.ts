import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Logger } from '../logger.ts';

/** `link` is the one action of the mail; it carries the token, so it is never logged. */
export type Mail = { to: string; subject: string; text: string; html: string; link: string };

export type Mailer = {
  /** Never rejects: a mail that cannot be sent is logged, and the request that caused it goes on. */
  send: (mail: Mail) => Promise<void>;
  /** Waits for mails still being sent, then closes the SMTP connections. */
  close: () => Promise<void>;
};

export type MailerOptions = { smtpUrl: string | undefined; from: string; outboxDir: string; log: Logger };

/**
 * Mail through SMTP_URL, or, without it, into `outboxDir` as .eml files (one per mail), so a
 * developer can follow a link without a mail server. The files hold live tokens: only the
 * service's own user may read them (0600 in a 0700 directory), and the log names the file, not
 * the link. Production refuses to start without SMTP_URL (src/config.ts).
 */
export function createMailer(o: MailerOptions): Mailer {
  const log = o.log.child({ component: 'mailer' });
  const inFlight = new Set<Promise<void>>();
  // A pool reuses connections between mails; short timeouts keep a dead mail server from holding
  // sockets for nodemailer's default minutes.
  const smtp: Transporter | undefined = o.smtpUrl
    ? nodemailer.createTransport({
        url: o.smtpUrl,
        pool: true,
        maxConnections: 3,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
      })
    : undefined;
  const outbox = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  async function deliver(mail: Mail): Promise<void> {
    const message = { from: o.from, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html };
    try {
      if (smtp) {
        await smtp.sendMail(message);
        log.info({ to: mail.to, subject: mail.subject }, 'mail sent');
        return;
      }
      const info = await outbox.sendMail(message);
      await mkdir(o.outboxDir, { recursive: true, mode: 0o700 });
      // Wall time names the file, for a person listing the outbox: nothing is computed from it.
      const file = path.join(o.outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`);
      await writeFile(file, info.message as Buffer, { mode: 0o600 });
      log.info({ to: mail.to, subject: mail.subject, file }, 'mail written to outbox');
    } catch (err) {
      log.error({ err, to: mail.to, subject: mail.subject }, 'mail could not be sent');
    }
  }

  return {
    send(mail) {
      const sending = deliver(mail).finally(() => inFlight.delete(sending));
      inFlight.add(sending);
      return sending;
    },
    async close() {
      await Promise.all(inFlight);
      smtp?.close();
    },
  };
}
