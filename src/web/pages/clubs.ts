// Clubs (DESIGN 2.10, like Lichess teams): search and sort, your clubs, create one; a club's
// page with joining, leaving, its members and (for its owner) invitations and deletion.

import { ApiError, del, findUser, get, plainError, post, request } from '../api.ts';
import { fieldError, fill, formatDate, h, userLink } from '../dom.ts';
import type { PageContext } from '../router.ts';
import { session } from '../session.ts';
import type { Club, ClubMember } from '../types/api.ts';

type Go = (path: string, o?: { replace?: boolean }) => void;

function statusLine() {
  const el = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const say = (text: string, error = false) => {
    el.className = error ? 'status error' : 'status';
    el.textContent = text;
  };
  return { el, say };
}

const errorText = plainError;

export async function clubsPage(ctx: PageContext & { go: Go }): Promise<void> {
  const me = session.user();
  const { el: status, say } = statusLine();
  const q = h('input', { id: 'club-q', type: 'search', name: 'q', value: ctx.query.get('q') ?? '', maxlength: 40 });
  const sort = h('select', { id: 'club-sort', name: 'sort' }, h('option', { value: 'members' }, 'Most members'), h('option', { value: 'created_at' }, 'Newest'), h('option', { value: 'name' }, 'Name'));
  const mine = h('input', { id: 'club-mine', type: 'checkbox', name: 'mine' });
  const list = h('ul', { class: 'clubs' });
  const search = h('form', { class: 'inline-form', role: 'search' },
    h('label', { for: 'club-q' }, 'Search'), q, h('label', { for: 'club-sort' }, 'Sort'), sort,
    me ? h('label', { class: 'inline' }, mine, ' Mine only') : null, h('button', { type: 'submit' }, 'Search'));

  const load = async () => {
    const params = new URLSearchParams({ sort: sort.value, limit: '50' });
    if (q.value.trim()) params.set('q', q.value.trim());
    if (mine.checked) params.set('mine', 'true');
    const clubs = await get<Club[]>(`/clubs?${params}`, { auth: !!me });
    fill(list, clubs.length
      ? clubs.map((c) => h('li', null, h('a', { href: `/clubs/${c.id}` }, c.name), ` · ${c.member_count} member${c.member_count === 1 ? '' : 's'}${c.open ? '' : ' · closed'}${c.role ? ` · ${c.role}` : ''}`))
      : h('li', { class: 'empty' }, 'No clubs found.'));
  };
  search.addEventListener('submit', (event) => {
    event.preventDefault();
    load().catch((e) => say(errorText(e), true));
  });

  const name = h('input', { id: 'club-name', name: 'name', required: true, minlength: 3, maxlength: 40 });
  const description = h('textarea', { id: 'club-description', name: 'description', maxlength: 2000, rows: 3 });
  const open = h('input', { id: 'club-open', type: 'checkbox', name: 'open', checked: true });
  const createError = fieldError();
  const create = h('form', { class: 'stacked' },
    h('p', null, h('label', { for: 'club-name' }, 'Name'), name),
    h('p', null, h('label', { for: 'club-description' }, 'Description'), description),
    h('p', null, h('label', { class: 'inline' }, open, ' Anyone may join')),
    h('button', { type: 'submit', class: 'primary' }, 'Create club'), createError.el);
  create.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const club = await post<Club>('/clubs', { name: name.value, description: description.value.trim() || undefined, open: open.checked });
      ctx.go(`/clubs/${club.id}`);
    } catch (e) {
      createError.show(errorText(e));
    }
  });

  fill(ctx.root, h('h1', null, 'Clubs'), status, h('section', { class: 'card' }, search, list),
    me ? h('section', { class: 'card' }, h('h2', null, 'Create a club'), create) : h('p', null, h('a', { href: '/login?next=/clubs' }, 'Log in'), ' to create or join a club.'));
  await load();
}

export async function clubPage(ctx: PageContext & { go: Go }): Promise<void> {
  const me = session.user();
  const { el: status, say } = statusLine();
  let club: Club;
  try {
    club = await get<Club>(`/clubs/${encodeURIComponent(ctx.params.id)}`, { auth: !!me });
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return fill(ctx.root, h('h1', null, 'No such club'), h('p', null, h('a', { href: '/clubs' }, 'All clubs')));
    throw e;
  }
  const reload = () => ctx.go(location.pathname, { replace: true }); // draws the page again with fresh data
  const act = (fn: () => Promise<unknown>, then: () => void) => async () => {
    try {
      await fn();
      then();
    } catch (e) {
      say(errorText(e), true);
    }
  };
  const members = h('ul', { class: 'people' });
  const inviteName = h('input', { id: 'invite-name', name: 'username', required: true, maxlength: 20, autocomplete: 'off' });
  const invite = h('form', { class: 'inline-form' }, h('label', { for: 'invite-name' }, 'Invite a player'), inviteName, h('button', { type: 'submit' }, 'Invite'));
  invite.addEventListener('submit', async (event) => {
    event.preventDefault();
    const user = await findUser(inviteName.value).catch(() => undefined);
    if (!user) return say(`No player is called ${inviteName.value}.`, true);
    try {
      const res = await request('POST', `/clubs/${club.id}/invites`, { body: { user_id: user.id } });
      say(res.status === 201 ? `${user.username} is invited.` : `${user.username} was already invited.`);
      inviteName.value = '';
    } catch (e) {
      say(errorText(e), true);
    }
  });

  const role = club.role;
  fill(ctx.root,
    h('h1', null, club.name),
    h('p', { class: 'info' }, `${club.member_count} member${club.member_count === 1 ? '' : 's'} · owner `, userLink(club.owner.username),
      ` · ${club.open ? 'open to all' : 'by invitation'} · since ${formatDate(club.created_at)}`),
    club.description ? h('p', { class: 'description' }, club.description) : null,
    status,
    h('p', { class: 'actions' },
      // A club by invitation takes only those its owner invited: nobody else is offered to join.
      me && (role === 'invited' || (role === null && club.open))
        ? h('button', { type: 'button', class: 'primary', onclick: act(() => post(`/clubs/${club.id}/join`), () => reload()) }, role === 'invited' ? 'Accept the invitation' : 'Join')
        : null,
      me && role === null && !club.open ? h('span', { class: 'muted' }, 'By invitation only: ask the owner to invite you.') : null,
      role === 'member' ? h('button', { type: 'button', onclick: act(() => post(`/clubs/${club.id}/leave`), () => reload()) }, 'Leave') : null,
      role === 'owner' ? h('button', { type: 'button', class: 'danger', onclick: act(() => del(`/clubs/${club.id}`), () => ctx.go('/clubs')) }, 'Delete the club') : null,
      h('a', { href: '/clubs' }, 'All clubs')),
    role === 'owner' ? h('section', { class: 'card' }, invite) : null,
    role === 'owner' || role === 'member' ? h('section', { class: 'card' }, h('h2', null, 'Members'), members) : null,
  );
  if (role === 'owner' || role === 'member') {
    const list = await get<ClubMember[]>(`/clubs/${club.id}/members?limit=100`);
    fill(members, list.map((m) => h('li', null, h('strong', null, userLink(m.user.username)), ` · ${m.role} · joined ${formatDate(m.joined_at)}`)));
  }
}
