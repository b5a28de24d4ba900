// Sign up and log in. The answers' tokens go to the session (src/web/session.ts says where and why).

import { ApiError, post } from '../api.ts';
import { fill, h } from '../dom.ts';
import type { PageContext } from '../router.ts';
import { session, type SessionUser } from '../session.ts';

type Go = (path: string) => void;
type Tokens = { access_token: string; refresh_token: string; expires_in: number };

export function loginPage(ctx: PageContext & { go: Go }): void {
  authForm(ctx, {
    title: 'Log in',
    fields: [
      ['email', 'Email', { type: 'email', autocomplete: 'email' }],
      ['password', 'Password', { type: 'password', autocomplete: 'current-password' }],
    ],
    submit: 'Log in',
    other: h('p', null, 'New here? ', h('a', { href: `/signup${location.search}` }, 'Create an account'), '.'),
    send: (v) => post<{ user: SessionUser; session: Tokens }>('/auth/login', { email: v.email, password: v.password }, { auth: false }),
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
    send: (v) => post<{ user: SessionUser; session: Tokens }>('/auth/signup', { username: v.username, email: v.email, password: v.password }, { auth: false }),
  });
}

function authForm(
  ctx: PageContext & { go: Go },
  o: {
    title: string;
    fields: [name: string, label: string, attrs: Record<string, string | number>][];
    help?: Record<string, string>;
    submit: string;
    other: HTMLElement;
    send: (values: Record<string, string>) => Promise<{ user: SessionUser; session: Tokens }>;
  },
): void {
  const errors = h('div', { class: 'form-errors', role: 'alert' });
  const button = h('button', { type: 'submit', class: 'primary' }, o.submit);
  const form = h('form', { class: 'auth', novalidate: true },
    o.fields.map(([name, label, attrs]) =>
      h('p', null,
        h('label', { for: `f-${name}` }, label),
        h('input', { id: `f-${name}`, name, required: true, ...attrs }),
        o.help?.[name] ? h('small', { id: `${name}-help` }, o.help[name]) : null)),
    button, errors);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(form)) as Record<string, string>;
    button.disabled = true;
    try {
      const { user, session: tokens } = await o.send(values);
      session.start({ id: user.id, username: user.username, email: user.email }, tokens);
      const next = ctx.query.get('next');
      // Only a path of this app: `next` must not send anyone to another site.
      ctx.go(next && next.startsWith('/') && !next.startsWith('//') ? next : '/');
    } catch (e) {
      const lines = e instanceof ApiError ? e.lines() : ['The service could not be reached; try again.'];
      fill(errors, h('ul', null, lines.map((l) => h('li', null, l))));
      button.disabled = false;
    }
  });
  fill(ctx.root, h('section', { class: 'card narrow' }, h('h1', null, o.title), form, o.other));
}
