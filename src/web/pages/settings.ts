// Settings: the password and the email of the account (each asks for the password), and the
// sounds of this device (src/web/prefs.ts).

import { get, plainError, post } from '../api.ts';
import { fieldError, fill, h } from '../dom.ts';
import { prefs } from '../prefs.ts';
import type { PageContext } from '../router.ts';
import { playSound } from '../sound.ts';
import type { EmailChangeResult, User } from '../types/api.ts';

type Field = [name: string, label: string, attrs: Record<string, string | number>];

/** A small form: its fields, its button, its error and its success line beside it. */
function settingsForm(o: { id: string; title: string; intro?: HTMLElement; fields: Field[]; submit: string; help?: string; send: (v: Record<string, string>) => Promise<string> }) {
  const errors = fieldError();
  const done = h('p', { class: 'status', role: 'status' });
  const button = h('button', { type: 'submit', class: 'primary' }, o.submit);
  const form = h('form', { class: 'stacked', novalidate: true, 'aria-labelledby': `${o.id}-h` },
    o.fields.map(([name, label, attrs]) =>
      h('p', null, h('label', { for: `${o.id}-${name}` }, label), h('input', { id: `${o.id}-${name}`, name, required: true, ...attrs }))),
    o.help ? h('p', { class: 'muted' }, o.help) : null,
    button, errors.el, done);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    errors.clear();
    done.textContent = '';
    button.disabled = true;
    try {
      done.textContent = await o.send(Object.fromEntries(new FormData(form)) as Record<string, string>);
      form.reset();
    } catch (e) {
      errors.show(plainError(e));
    }
    button.disabled = false;
  });
  return h('section', { class: 'card' }, h('h2', { id: `${o.id}-h` }, o.title), o.intro, form);
}

export async function settingsPage(ctx: PageContext): Promise<void> {
  const me = await get<User>('/users/me');
  const emailLine = h('p', null);
  // A new address waits for its link to be opened; the account's stays until then (issue 37).
  const drawEmail = (email: string, verified: boolean, pending: string | null) =>
    fill(emailLine, 'Your email: ', h('strong', null, email), verified ? ' (confirmed)' : [' (not confirmed yet: ', h('a', { href: '/confirm-email' }, 'mail me a new link'), ')'],
      pending ? ['. Waiting for confirmation: ', h('strong', null, pending), ' (open the link we mailed there; it stays your email until then)'] : null);
  drawEmail(me.email, me.email_verified, me.pending_email);

  const sound = h('input', { id: 'sound', type: 'checkbox', checked: prefs.sound() });
  sound.addEventListener('change', () => {
    prefs.setSound(sound.checked);
    if (sound.checked) playSound('move');
  });

  fill(ctx.root, h('div', { class: 'settings' },
    h('h1', null, 'Settings'),
    h('section', { class: 'card' }, h('h2', null, 'API access'),
      h('p', null, h('a', { href: '/settings/tokens' }, 'Personal access tokens'), ' let your scripts and bots use the API as you.')),
    h('section', { class: 'card' }, h('h2', null, 'Sound'),
      h('label', { class: 'inline', for: 'sound' }, sound, ' Move and capture sounds'),
      h('p', { class: 'muted' }, 'Kept on this device only.')),
    settingsForm({
      id: 'password',
      title: 'Change your password',
      fields: [
        ['current_password', 'Current password', { type: 'password', autocomplete: 'current-password' }],
        ['new_password', 'New password', { type: 'password', autocomplete: 'new-password', minlength: 8 }],
      ],
      help: 'At least 8 characters, with a letter and a digit. You stay logged in here; your other devices are logged out.',
      submit: 'Change password',
      send: async (v) => {
        await post('/users/me/password', { current_password: v.current_password, new_password: v.new_password });
        return 'Your password is changed. Your other devices are logged out.';
      },
    }),
    settingsForm({
      id: 'email',
      title: 'Email',
      intro: emailLine,
      fields: [
        ['email', 'New email', { type: 'email', autocomplete: 'email' }],
        ['password', 'Password', { type: 'password', autocomplete: 'current-password' }],
      ],
      help: 'We mail a confirmation link to the new address, and a notice to the old one. The new address is yours once you open the link.',
      submit: 'Change email',
      send: async (v) => {
        const changed = await post<EmailChangeResult>('/users/me/email', { email: v.email, password: v.password });
        drawEmail(changed.email, changed.email_verified, changed.pending_email);
        return changed.pending_email
          ? `We mailed a link to ${changed.pending_email}: open it to make it your email. Until then your email stays ${changed.email}.`
          : `Your email stays ${changed.email}.`;
      },
    })));
}
