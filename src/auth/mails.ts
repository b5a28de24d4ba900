import type { Mail } from './mailer.ts';
import { escapeHtml } from '../util/html.ts';

/**
 * The account mails. Each carries its token as the `token=` parameter of one link under
 * PUBLIC_URL (DESIGN 2.2); the front end at that address posts the token back to the API.
 * Plain ASCII text first, so the link survives any transfer encoding.
 */


type Content = { subject: string; before: string[]; link: string; action: string; after: string[] };

function compose(to: string, c: Content): Mail {
  const text = [...c.before, '', c.link, '', ...c.after, ''].join('\n');
  const paragraphs = (lines: string[]) => lines.map((l) => `<p>${escapeHtml(l)}</p>`).join('');
  const html = `${paragraphs(c.before)}<p><a href="${escapeHtml(c.link)}">${escapeHtml(c.action)}</a></p>${paragraphs(c.after)}`;
  return { to, subject: c.subject, text, html, link: c.link };
}

const hours = (n: number) => (n === 1 ? 'one hour' : `${n} hours`);

export function verificationMail(o: { to: string; username: string; publicUrl: string; token: string; validHours: number }): Mail {
  return compose(o.to, {
    subject: 'Confirm your email address',
    before: [`Hello ${o.username},`, `Please confirm your email address by opening this link within ${hours(o.validHours)}:`],
    link: `${o.publicUrl}/verify-email?token=${o.token}`,
    action: 'Confirm my email address',
    after: ['If you did not create an account, ignore this mail.'],
  });
}

export function passwordResetMail(o: { to: string; username: string; publicUrl: string; token: string; validHours: number }): Mail {
  return compose(o.to, {
    subject: 'Reset your password',
    before: [
      `Hello ${o.username},`,
      `Someone asked to reset the password of your account. To choose a new one, open this link within ${hours(o.validHours)}:`,
    ],
    link: `${o.publicUrl}/reset-password?token=${o.token}`,
    action: 'Choose a new password',
    after: ['If it was not you, ignore this mail: your password stays as it is.'],
  });
}
