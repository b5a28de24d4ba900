// Sign up and log in. The answers' tokens go to the session (src/web/session.ts says where and why).

import { plainError, post } from '../api.ts';
import { fieldError, fill, h } from '../dom.ts';
import { news } from '../news.ts';
import type { PageContext } from '../router.ts';
import { session } from '../session.ts';
import type { LoginResult, SignupResult } from '../types/api.ts';

type Go = (path: string) => void;

export function loginPage(ctx: PageContext & { go: Go }): void {
  authForm(ctx, {
    title: 'Log in',
    fields: [
      // The API takes the username in place of the email.
      ['email', 'Email or username', { autocomplete: 'username', autocapitalize: 'off', spellcheck: 'false' }],
      ['password', 'Password', { type: 'password', autocomplete: 'current-password' }],
    ],
    submit: 'Log in',
    aside: h('p', { class: 'aside' }, h('a', { href: '/forgot-password' }, 'Forgot your password?')),
    other: h('p', null, 'New here? ', h('a', { href: `/signup${location.search}` }, 'Create an account'), '.'),
    send: (v) => post<LoginResult>('/auth/login', { email: v.email, password: v.password }, { auth: false }),
  });
}

export function signupPage(ctx: PageContext & { go: Go }): void {
  authForm(ctx, {
    title: 'Create an account',
    fields: [
      ['username', 'Username', { autocomplete: 'username', minlength: 3, maxlength: 20, pattern: '[A-Za-z0-9_]{3,20}', 'aria-describedby': 'username-help' }],
      ['email', 'Email', { type: 'email', autocomplete: 'email' }],
      ['password', 'Password', { type: 'password', autocomplete: 'new-password', minlength: 8, 'aria-describedby': 'password-help' }],
    ],
    help: {
      username: '3 to 20 letters, digits or underscores.',
      password: 'At least 8 characters, with a letter and a digit.',
    },
    submit: 'Sign up',
    other: h('p', null, 'Have an account? ', h('a', { href: `/login${location.search}` }, 'Log in'), '.'),
    send: (v) => post<SignupResult>('/auth/signup', { username: v.username, email: v.email, password: v.password }, { auth: false }),
    // Issue 37: the signup used to mail its confirmation link without a word; the line stays on the
    // pages that follow until dismissed.
    started: (user) =>
      news.add(`We sent a confirmation mail to ${user.email}: open the link in it to confirm your address.`, ['No mail? Send another', '/confirm-email']),
  });
}

function authForm(
  ctx: PageContext & { go: Go },
  o: {
    title: string;
    fields: [name: string, label: string, attrs: Record<string, string | number>][];
    help?: Record<string, string>;
    submit: string;
    aside?: HTMLElement;
    other: HTMLElement;
    send: (values: Record<string, string>) => Promise<LoginResult | SignupResult>;
    /** After the session has started (the signup tells of its mail). */
    started?: (user: { email: string }) => void;
  },
): void {
  const errors = fieldError();
  const button = h('button', { type: 'submit', class: 'primary' }, o.submit);
  const form = h('form', { class: 'auth', novalidate: true },
    o.fields.map(([name, label, attrs]) =>
      h('p', null,
        h('label', { for: `f-${name}` }, label),
        h('input', { id: `f-${name}`, name, required: true, ...attrs }),
        o.help?.[name] ? h('small', { id: `${name}-help` }, o.help[name]) : null)),
    o.aside, button, errors.el);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(form)) as Record<string, string>;
    button.disabled = true;
    try {
      const { user, session: tokens } = await o.send(values);
      session.start({ id: user.id, username: user.username, email: user.email }, tokens);
      o.started?.(user);
      const next = ctx.query.get('next');
      // Only a path of this app: `next` must not send anyone to another site.
      ctx.go(next && next.startsWith('/') && !next.startsWith('//') ? next : '/');
    } catch (e) {
      errors.show(plainError(e));
      button.disabled = false;
    }
  });
  fill(ctx.root, h('section', { class: 'card narrow' }, h('h1', null, o.title), form, o.other));
}

/**
 * A page with one email field that asks the API to mail a link (a password reset, a new
 * confirmation). The API answers alike whether or not the account exists; so does the page.
 */
function mailLinkPage(ctx: PageContext, o: { title: string; intro: string; path: string; submit: string }): void {
  const email = h('input', { id: 'f-email', name: 'email', type: 'email', autocomplete: 'email', required: true });
  const errors = fieldError();
  const done = h('p', { class: 'status', role: 'status' });
  const button = h('button', { type: 'submit', class: 'primary' }, o.submit);
  const form = h('form', { class: 'auth', novalidate: true }, h('p', null, h('label', { for: 'f-email' }, 'Email'), email), button, errors.el);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    errors.clear();
    button.disabled = true;
    try {
      await post('/' + o.path, { email: email.value }, { auth: false });
      form.hidden = true;
      done.textContent = `If an account uses ${email.value}, a link is on its way. It works once; check your spam folder too.`;
    } catch (e) {
      errors.show(plainError(e));
    }
    button.disabled = false;
  });
  fill(ctx.root, h('section', { class: 'card narrow' }, h('h1', null, o.title), h('p', null, o.intro), form, done,
    h('p', null, h('a', { href: '/login' }, 'Back to log in'))));
}

export function forgotPasswordPage(ctx: PageContext): void {
  mailLinkPage(ctx, {
    title: 'Forgot your password?',
    intro: 'Give the email address of your account: we mail you a link to choose a new password (it works for an hour).',
    path: 'auth/password/reset',
    submit: 'Mail me a link',
  });
}

export function confirmEmailPage(ctx: PageContext): void {
  mailLinkPage(ctx, {
    title: 'Confirm your email',
    intro: 'Give the email address of your account: we mail you a new confirmation link (it works for a day).',
    path: 'auth/verify/resend',
    submit: 'Mail me a new link',
  });
}
