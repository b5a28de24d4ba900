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

/** To the new address of an email change: the account takes it when this link is opened. */
export function emailChangeMail(o: { to: string; username: string; publicUrl: string; token: string; validHours: number }): Mail {
  return compose(o.to, {
    subject: 'Confirm your new email address',
    before: [
      `Hello ${o.username},`,
      `You asked to use this address for your chess account. It takes the place of the old one when you open this link within ${hours(o.validHours)}:`,
    ],
    // The page that confirms a signup's address confirms this one too (POST /v1/auth/verify).
    link: `${o.publicUrl}/verify-email?token=${o.token}`,
    action: 'Use this email address',
    after: ['Until then the account keeps its old address. If you did not ask for this, ignore this mail.'],
  });
}

/**
 * To the address an email change leaves, as the change is asked for: it carries no token (its
 * link is the page that mails a reset link), so whoever reads the old mailbox learns of the
 * change and can stop it, and can do nothing else with this mail.
 */
export function emailChangeNotice(o: { to: string; username: string; publicUrl: string; newEmail: string }): Mail {
  return compose(o.to, {
    subject: 'Your email address is being changed',
    before: [
      `Hello ${o.username},`,
      `Someone signed in to your chess account asked to change its email address to ${o.newEmail}.`,
      'This address stays the account\'s until the new one is confirmed from the link mailed to it.',
      'If it was you, there is nothing to do. If it was not, reset your password now: that cancels the change and signs every device out.',
    ],
    link: `${o.publicUrl}/forgot-password`,
    action: 'Reset my password',
    after: [],
  });
}
