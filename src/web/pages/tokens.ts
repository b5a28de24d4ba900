// Personal access tokens (DESIGN 2.12): make one for a script or a bot (a description, its
// scopes, an optional expiry), see it once with a copy button, list them and revoke them.

import { ApiError, del, plainError, post, request } from '../api.ts';
import { fieldError, fill, formatDate, h } from '../dom.ts';
import type { PageContext } from '../router.ts';
import type { CreatedPersonalToken, PersonalToken } from '../types/api.ts';

/** The scopes the API knows (src/auth/scopes.ts), in its order, as a person reads them. */
const SCOPES: [scope: string, label: string][] = [
  ['games:read', 'Read your games and your personal events'],
  ['games:play', 'Play: challenges, seeks, moves, draws, takebacks, chat'],
  ['social:write', 'Friends and clubs'],
  ['puzzles:write', 'Solve puzzles'],
  ['tournaments:write', 'Create, join and leave tournaments'],
  ['webhooks:write', 'Manage webhooks'],
  ['account:read', 'Read your private profile and friend list'],
  ['board:play', 'Lichess Board API: play from a board app or a script'],
  ['bot:play', 'Lichess Bot API: play as a bot'],
  ['challenge:read', 'Lichess API: read your challenges'],
  ['challenge:write', 'Lichess API: send and answer challenges'],
];

function tokenError(e: unknown): string {
  if (e instanceof ApiError && e.code === 'TOKEN_LIMIT') return 'You have 50 tokens, the most you may have. Revoke one first.';
  if (e instanceof ApiError && e.details?.scopes) return 'Pick at least one permission.';
  return plainError(e);
}

export async function tokensPage(ctx: PageContext): Promise<void> {
  const list = h('div', { class: 'token-list' });
  const listError = fieldError();

  async function drawList(): Promise<void> {
    const { data: tokens } = await request<PersonalToken[]>('GET', '/account/tokens?limit=50');
    if (!tokens.length) return fill(list, h('p', { class: 'empty' }, 'No tokens yet.'));
    fill(list, h('table', { class: 'tokens' },
      h('thead', null, h('tr', null, h('th', null, 'Description'), h('th', null, 'Permissions'), h('th', null, 'Last used'), h('th', null, 'Expires'), h('th', null, ''))),
      h('tbody', null, tokens.map((t) => {
        const revoke = h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke ${t.description}` }, 'Revoke');
        revoke.addEventListener('click', async () => {
          listError.clear();
          revoke.disabled = true;
          try {
            await del(`/account/tokens/${t.id}`);
            await drawList();
          } catch (e) {
            listError.show(plainError(e));
            revoke.disabled = false;
          }
        });
        return h('tr', { 'data-id': t.id },
          h('td', null, t.description),
          h('td', null, h('code', null, t.scopes.join(' '))),
          h('td', null, t.last_used_at ? formatDate(t.last_used_at) : 'never'),
          h('td', null, t.expires_at ? formatDate(t.expires_at) : 'never'),
          h('td', null, revoke));
      }))));
  }

  const shown = h('div', { class: 'new-token', hidden: true });
  const errors = fieldError();
  const button = h('button', { type: 'submit', class: 'primary' }, 'Make token');
  const form = h('form', { class: 'stacked', novalidate: true, 'aria-labelledby': 'new-token-h' },
    h('p', null, h('label', { for: 'token-description' }, 'Description'),
      h('input', { id: 'token-description', name: 'description', required: true, maxlength: 100, placeholder: 'my bot' })),
    h('fieldset', { class: 'scopes' }, h('legend', null, 'Permissions'),
      SCOPES.map(([scope, label]) => h('label', { class: 'inline' },
        h('input', { type: 'checkbox', name: 'scopes', value: scope }), ' ', h('code', null, scope), ` — ${label}`))),
    h('p', null, h('label', { for: 'token-expires' }, 'Expires (optional)'),
      h('input', { id: 'token-expires', name: 'expires', type: 'date' })),
    h('p', { class: 'muted' }, 'Reading public data (games, players, clubs, puzzles, tournaments) needs no permission.'),
    button, errors.el);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    errors.clear();
    shown.hidden = true;
    const data = new FormData(form);
    const expires = String(data.get('expires') ?? '');
    button.disabled = true;
    try {
      const made = await post<CreatedPersonalToken>('/account/tokens', {
        description: String(data.get('description') ?? ''),
        scopes: data.getAll('scopes').map(String),
        // The end of the chosen day, where the person is.
        expires_at: expires ? new Date(`${expires}T23:59:59`).toISOString() : null,
      });
      showOnce(made.token);
      form.reset();
      await drawList();
    } catch (e) {
      errors.show(tokenError(e));
    }
    button.disabled = false;
  });

  function showOnce(token: string): void {
    const value = h('input', { id: 'new-token-value', readonly: true, value: token, 'aria-label': 'Your new token' });
    const copied = h('span', { class: 'status', role: 'status' });
    const copy = h('button', { type: 'button' }, 'Copy');
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(token);
        copied.textContent = 'Copied.';
      } catch {
        // No clipboard (an insecure origin, a refused permission): select it for the person to copy.
        value.select();
        copied.textContent = 'Press Ctrl+C (⌘C) to copy.';
      }
    });
    fill(shown, h('p', null, h('strong', null, 'Copy your new token now: it will not be shown again.')),
      h('p', { class: 'token-row' }, value, ' ', copy, ' ', copied),
      h('p', { class: 'muted' }, 'Send it as ', h('code', null, 'Authorization: Bearer cst_…'), '. Anyone holding it can act as you within its permissions.'));
    shown.hidden = false;
  }

  fill(ctx.root, h('div', { class: 'settings' },
    h('h1', null, 'Personal access tokens'),
    h('p', null, h('a', { href: '/settings' }, '← Settings')),
    h('p', { class: 'muted' }, 'Tokens let your scripts and bots use the API as you, limited to the permissions you pick. ' +
      'They end when you revoke them, when they expire, or when your password changes; logging out keeps them.'),
    h('section', { class: 'card' }, h('h2', { id: 'new-token-h' }, 'New token'), form, shown),
    h('section', { class: 'card' }, h('h2', null, 'Your tokens'), list, listError.el)));
  await drawList();
}
