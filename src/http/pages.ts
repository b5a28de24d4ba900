// The pages the mailed links open (verify-email, reset-password): plain server-rendered HTML, no
// framework, nothing fetched from elsewhere; DESIGN 2.1's "never HTML" is about the API under /v1,
// which these are not. The invite links (/play/{id}) open the web app (src/http/web.ts).

import express, { type ErrorRequestHandler, type Request, type Response } from 'express';
import { isAppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { TokenBody, type Accounts } from '../services/accounts.ts';
import { escapeHtml } from '../util/html.ts';
import type { OperationLimit, Route, RouteDeps } from './route.ts';
import { pagePolicy } from './security.ts';

// ---- HTML --------------------------------------------------------------------------------

/** Markup that is already safe; everything else interpolated into `html` is escaped. */
class Html {
  constructor(readonly text: string) {}
}
type Part = Html | string | number | null | undefined | readonly Part[];

const formatPart = (p: Part): string =>
  p instanceof Html ? p.text : Array.isArray(p) ? p.map(formatPart).join('') : p == null ? '' : escapeHtml(String(p));

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let text = strings[0];
  values.forEach((v, i) => (text += formatPart(v) + strings[i + 1]));
  return new Html(text);
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f1ea;color:#222}
main{max-width:32rem;margin:3rem auto;padding:1.5rem 2rem;background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002}
h1{font-size:1.4rem;margin-top:0}code{background:#eee;padding:0 .25rem;border-radius:3px;word-break:break-all}
label{display:block;margin:.75rem 0 .25rem}input{width:100%;box-sizing:border-box;padding:.5rem;font:inherit}
button{margin-top:1rem;padding:.5rem 1.25rem;font:inherit}.error{color:#a00}.ok{color:#060}
a.button{display:inline-block;padding:.5rem 1.25rem;background:#3d7a4f;color:#fff;border-radius:6px;text-decoration:none}
.back{margin:1.5rem 0 0;font-size:.95rem}`;

// The reset form: the token travels in a hidden field, the answer is shown as text (never as HTML).
const RESET_SCRIPT = `
const form = document.getElementById('reset');
const result = document.getElementById('result');
const button = form.querySelector('button');
function show(lines, failed) {
  const [first, ...rest] = lines;
  const p = document.createElement('p');
  p.className = failed ? 'error' : 'ok';
  p.textContent = first;
  const list = document.createElement('ul');
  for (const line of rest) list.appendChild(document.createElement('li')).textContent = line;
  result.replaceChildren(p, ...(rest.length ? [list] : []));
}
button.disabled = false;
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (form.password.value !== form.confirm.value) return show(['The two passwords differ.'], true);
  button.disabled = true;
  try {
    const res = await fetch('/v1/auth/password/update', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: form.token.value, password: form.password.value }),
    });
    const body = await res.json().catch(() => ({}));
    if (res.ok) {
      form.hidden = true;
      show([body.message || 'Password updated.'], false);
      const login = document.createElement('a');
      login.className = 'button';
      login.href = '/login';
      login.textContent = 'Log in';
      return result.appendChild(document.createElement('p')).appendChild(login);
    }
    const error = body.error || {};
    const details = Object.entries(error.details || {}).flatMap(([field, messages]) =>
      [].concat(messages).map((m) => field + ' ' + m));
    show([error.message || 'The request failed (' + res.status + ').', ...details], true);
    if (error.code === 'INVALID_TOKEN') {
      form.hidden = true;
      const again = document.createElement('a');
      again.className = 'button';
      again.href = '/forgot-password';
      again.textContent = 'Send me a new reset link';
      return result.appendChild(document.createElement('p')).appendChild(again);
    }
  } catch {
    show(['The service could not be reached; try again.'], true);
  }
  button.disabled = false;
});
`;

type Page = { status: number; title: string; body: Html; script?: 'reset'; headers?: Record<string, string> };

/** Only the page's own inline style and script run; nothing is loaded from anywhere. */
const policyOf = (page: Page) =>
  pagePolicy({ styles: [STYLE], ...(page.script ? { scripts: [RESET_SCRIPT], connect: true } : {}) });

function sendPage(res: Response, page: Page): void {
  const script = page.script ? new Html(`<script>${RESET_SCRIPT}</script>`) : '';
  const document = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${page.title}</title><style>${new Html(STYLE)}</style></head>
<body><main>${page.body}</main>${script}</body></html>
`;
  res
    .status(page.status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': policyOf(page),
      'Cache-Control': 'no-store',
      // The address of a mailed link carries its token: it must not leave as a Referer.
      'Referrer-Policy': 'no-referrer',
      ...page.headers,
    })
    .send(document.text);
}

const message = (status: number, title: string, ...lines: Part[]): Page => ({
  status,
  title,
  body: html`<h1>${title}</h1>${lines.map((l) => html`<p>${l}</p>`)}${BACK}`,
});

// ---- pages -------------------------------------------------------------------------------

/** Every page leads back into the app. */
const BACK = html`<p class="back"><a href="/">← Back to the app</a></p>`;

/** An expired or used link: a new one is a click away (the app's form for each kind of link). */
const invalidLink = (purpose: 'verify' | 'reset'): Page =>
  message(400, 'This link is invalid or has expired', 'Links work once and for a limited time.',
    purpose === 'verify'
      ? html`<a class="button" href="/confirm-email">Send me a new confirmation link</a>`
      : html`<a class="button" href="/forgot-password">Send me a new reset link</a>`);

const emailConfirmed = (email: string) =>
  message(200, 'Email confirmed', html`<strong>${email}</strong> is confirmed.`, html`<a class="button" href="/">Play chess</a>`);

/** An email change whose new address another account took before the link was opened (issue 37). */
const addressTaken = message(409, 'This address is taken', 'Another account has used this email address since you asked for it.',
  'Your account keeps its email as it was; you can ask for another one in your settings.');

const resetForm = (token: string): Page => ({
  status: 200,
  title: 'Choose a new password',
  script: 'reset',
  body: html`<h1>Choose a new password</h1>
<form id="reset" method="post" novalidate>
<input type="hidden" name="token" value="${token}">
<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" required>
<label for="confirm">New password again</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" required>
<button type="submit" disabled>Set the password</button>
</form>
<noscript><p class="error">This form needs JavaScript.</p></noscript>
<div id="result" role="status"></div>
${BACK}`,
});


// ---- router ------------------------------------------------------------------------------

/** Pages count against the limit of the API operation they stand for (DESIGN 2.3). */
const countedAs = (path: string, limit?: OperationLimit): Route => ({
  method: 'get',
  path,
  summary: '',
  tags: [],
  auth: 'none',
  hidden: true,
  ...(limit ? { limit } : {}),
  handler: async () => undefined,
});
const VERIFY = countedAs('/auth/verify'); // the auth class, shared with POST /v1/auth/verify
const READ = countedAs('/pages');

export function pagesRouter(o: {
  accounts: Accounts;
  rateLimit: RouteDeps['rateLimit'];
  log: Logger;
}): express.Router {
  const router = express.Router();
  const limit = (req: Request, res: Response, as: Route) => o.rateLimit(req, res, as, undefined);
  const tokenOf = (req: Request) => {
    const parsed = TokenBody.safeParse({ token: req.query.token });
    return parsed.success ? parsed.data.token : undefined;
  };

  // A mail link's GET does what POST /v1/auth/verify does. HEAD (link checkers) uses nothing up.
  router.get('/verify-email', async (req, res) => {
    if (req.method === 'HEAD') return sendPage(res, message(200, 'Confirm your email', 'Open this link in a browser.'));
    await limit(req, res, VERIFY);
    const token = tokenOf(req);
    if (!token) return sendPage(res, invalidLink('verify'));
    try {
      const { user } = await o.accounts.verifyEmail(token);
      sendPage(res, emailConfirmed(user.email));
    } catch (error) {
      if (isAppError(error) && error.code === 'INVALID_TOKEN') return sendPage(res, invalidLink('verify'));
      if (isAppError(error) && error.code === 'EMAIL_ALREADY_EXISTS') return sendPage(res, addressTaken);
      throw error;
    }
  });

  // The token cannot be checked without using it up: the API judges it when the form is sent.
  router.get('/reset-password', async (req, res) => {
    await limit(req, res, READ);
    const token = tokenOf(req);
    sendPage(res, token ? resetForm(token) : invalidLink('reset'));
  });

  router.use(pageErrors(o.log));
  return router;
}

/** Errors of a page are pages too: 429 with Retry-After, 4xx (e.g. a malformed URL), else 500. */
function pageErrors(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (isAppError(err) && err.code === 'RATE_LIMIT_EXCEEDED') {
      const retryAfter = String(err.extra?.retryAfter ?? 60);
      return sendPage(res, {
        ...message(429, 'Too many requests', `Please wait ${retryAfter} seconds and open the link again.`),
        headers: { 'Retry-After': retryAfter },
      });
    }
    const status = (err as { status?: unknown })?.status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendPage(res, message(400, 'This address is not valid', 'Check the link you were given.'));
    }
    log.error({ err, method: req.method, url: req.path }, 'page failed');
    if (res.headersSent) return void res.end();
    sendPage(res, message(500, 'Something went wrong', 'Please try again in a moment.'));
  };
}
