// Friends (DESIGN 2.10): your friends with who is online, requests to you and from you, and a
// request by username. Asking someone who asked you accepts; removing declines or withdraws.

import { del, findUser, get, plainError, post } from '../api.ts';
import { fill, formatDate, h, userLink } from '../dom.ts';
import { userFeed } from '../userFeed.ts';
import type { PageContext } from '../router.ts';
import type { Friend } from '../types/api.ts';

const TABS = [
  ['friends', 'Friends'],
  ['incoming', 'Requests to you'],
  ['outgoing', 'Requests you sent'],
] as const;

export async function friendsPage(ctx: PageContext): Promise<void> {
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const say = (text: string, error = false) => {
    status.className = error ? 'status error' : 'status';
    status.textContent = text;
  };
  const lists = Object.fromEntries(TABS.map(([key]) => [key, h('ul', { class: 'people' })])) as Record<(typeof TABS)[number][0], HTMLUListElement>;
  const name = h('input', { id: 'friend-name', name: 'username', required: true, maxlength: 20, autocomplete: 'off' });
  const form = h('form', { class: 'inline-form' }, h('label', { for: 'friend-name' }, 'Username'), name, h('button', { type: 'submit', class: 'primary' }, 'Add friend'));

  const act = (fn: () => Promise<unknown>, done: string) => async () => {
    try {
      await fn();
      say(done);
      await load();
    } catch (e) {
      say(plainError(e), true);
    }
  };

  const load = async () => {
    const [friends, incoming, outgoing] = await Promise.all(TABS.map(([key]) => get<Friend[]>(`/friends?status=${key}&limit=100`)));
    const row = (f: Friend, ...actions: HTMLElement[]) =>
      h('li', null,
        // Presence is shown for friends only (null on requests).
        ...(f.online === null ? [] : [
          h('span', { class: `online-dot ${f.online ? 'on' : ''}`, title: f.online ? 'online' : 'offline' }),
          h('span', { class: 'visually-hidden' }, f.online ? 'online, ' : 'offline, ')]),
        h('strong', null, userLink(f.user.username)), ` ${f.user.rating} · since ${formatDate(f.since)} `, ...actions);
    fill(lists.friends, friends.length ? friends.map((f) => row(f,
      h('a', { class: 'button', href: `/?challenge=${encodeURIComponent(f.user.username)}` }, 'Challenge'),
      h('button', { type: 'button', onclick: act(() => del(`/friends/${f.user.id}`), `${f.user.username} is no longer your friend.`) }, 'Remove'))) : h('li', { class: 'empty' }, 'No friends yet.'));
    fill(lists.incoming, incoming.length ? incoming.map((f) => row(f,
      h('button', { type: 'button', class: 'primary', onclick: act(() => post(`/friends/${f.user.id}`), `You and ${f.user.username} are friends.`) }, 'Accept'),
      h('button', { type: 'button', onclick: act(() => del(`/friends/${f.user.id}`), 'Request declined.') }, 'Decline'))) : h('li', { class: 'empty' }, 'None.'));
    fill(lists.outgoing, outgoing.length ? outgoing.map((f) => row(f,
      h('button', { type: 'button', onclick: act(() => del(`/friends/${f.user.id}`), 'Request withdrawn.') }, 'Withdraw'))) : h('li', { class: 'empty' }, 'None.'));
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const user = await findUser(name.value).catch(() => undefined);
    if (!user) return say(`There is no player called “${name.value}”. Check the spelling.`, true);
    await act(() => post(`/friends/${user.id}`), `Friend request sent to ${user.username}.`)();
    name.value = '';
  });

  // Live: a request to you, or yours accepted, shows at once; who is online is read again now and then.
  ctx.cleanup(userFeed.onMessage((m) => {
    if (m.type === 'friend_request' || m.type === 'friend_accepted') void load().catch(() => {});
  }));
  const poll = setInterval(() => void load().catch(() => {}), 20_000);
  ctx.cleanup(() => clearInterval(poll));

  fill(ctx.root, h('h1', null, 'Friends'), status, h('section', { class: 'card' }, h('h2', null, 'Add a friend'), form),
    TABS.map(([key, title]) => h('section', { class: 'card' }, h('h2', null, title), lists[key])));
  await load();
}
