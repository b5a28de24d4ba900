// A player's page, /@/{username}: ratings per category, results, recent games, and the friend
// and challenge buttons. Anyone may open it (DESIGN 2.14); signed out, what needs an account (the
// buttons, the list of games, which GET /games serves to accounts only) is a link to sign in.

import { ApiError, del, get, plainError, post } from '../api.ts';
import { fill, formatDate, h, provisionalMark, userLink } from '../dom.ts';
import type { PageContext } from '../router.ts';
import { session } from '../session.ts';
import { describeKind } from '../timeControl.ts';
import type { Friend, GameSummary, PublicUser, TimeControl } from '../types/api.ts';

const CATEGORIES: TimeControl[] = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence'];

export async function profilePage(ctx: PageContext & { go: (path: string, o?: { replace?: boolean }) => void }): Promise<void> {
  const me = session.user();
  let p: PublicUser;
  try {
    p = await get<PublicUser>(`/users/by-username/${encodeURIComponent(ctx.params.username)}`);
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) {
      return fill(ctx.root, h('h1', null, 'No such player'), h('p', null, `Nobody is called “${ctx.params.username}”. `, h('a', { href: '/friends' }, 'Find a player'), '.'));
    }
    throw e;
  }
  if (ctx.signal.aborted) return;
  document.title = `${p.username} · Chess`;
  const self = p.id === me?.id;
  const signIn = (what: string) => h('a', { class: 'button primary', href: `/login?next=${encodeURIComponent(location.pathname)}` }, `Sign in to ${what}`);
  const status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const actions = h('p', { class: 'actions' });
  const games = h('tbody');

  const drawActions = async () => {
    if (!me) return fill(actions, signIn(`challenge ${p.username} or add them as a friend`));
    if (self) return fill(actions, h('a', { class: 'button', href: '/settings' }, 'Settings'), h('a', { class: 'button', href: '/games' }, 'My games'));
    const [friends, outgoing, incoming] = await Promise.all(
      ['friends', 'outgoing', 'incoming'].map((s) => get<Friend[]>(`/friends?status=${s}&limit=100`).catch(() => [] as Friend[])));
    const has = (list: Friend[]) => list.some((f) => f.user.id === p.id);
    const act = (fn: () => Promise<unknown>, done: string) => async () => {
      try {
        await fn();
        status.className = 'status';
        status.textContent = done;
        await drawActions();
      } catch (e) {
        status.className = 'status error';
        status.textContent = plainError(e);
      }
    };
    fill(actions,
      h('a', { class: 'button primary', href: `/?challenge=${encodeURIComponent(p.username)}` }, 'Challenge'),
      has(friends) ? [h('span', { class: 'badge' }, 'Friend'), h('button', { type: 'button', onclick: act(() => del(`/friends/${p.id}`), `${p.username} is no longer your friend.`) }, 'Remove friend')]
        : has(outgoing) ? [h('span', { class: 'muted' }, 'Friend request sent'), h('button', { type: 'button', onclick: act(() => del(`/friends/${p.id}`), 'Request withdrawn.') }, 'Withdraw')]
          : has(incoming) ? h('button', { type: 'button', class: 'primary', onclick: act(() => post(`/friends/${p.id}`), `You and ${p.username} are friends.`) }, 'Accept friend request')
            : h('button', { type: 'button', onclick: act(() => post(`/friends/${p.id}`), `Friend request sent to ${p.username}.`) }, 'Add friend'));
  };

  fill(ctx.root,
    // Lichess's title for a bot account (DESIGN 2.13), before the name as Lichess shows it.
    h('h1', null, p.bot ? [h('span', { class: 'badge bot', title: 'A bot account: it plays through challenges only' }, 'BOT'), ' '] : null, p.username),
    h('p', { class: 'info' }, [p.full_name, p.country, `joined ${formatDate(p.created_at)}`].filter(Boolean).join(' · ')),
    status,
    actions,
    h('section', { class: 'card', 'aria-labelledby': 'ratings-h' }, h('h2', { id: 'ratings-h' }, 'Ratings'),
      h('ul', { class: 'ratings' },
        CATEGORIES.filter((c) => p.ratings[c] !== undefined).map((c) => h('li', null, h('strong', null, String(p.ratings[c]), provisionalMark(p, c)), h('span', { class: 'category' }, c))),
        h('li', null, h('strong', null, String(p.puzzle_rating), provisionalMark(p, 'puzzle')), h('span', { class: 'category' }, 'puzzles'))),
      h('p', null, `${p.stats.games} rated game${p.stats.games === 1 ? '' : 's'}: ${p.stats.wins} won, ${p.stats.draws} drawn, ${p.stats.losses} lost.`)),
    h('section', { class: 'card', 'aria-labelledby': 'recent-h' }, h('h2', { id: 'recent-h' }, 'Recent games'),
      h('div', { class: 'table-wrap' }, h('table', { class: 'games' },
        h('thead', null, h('tr', null, ['Date', 'White', 'Black', 'Result', 'Time', ''].map((t) => h('th', { scope: 'col' }, t)))),
        games))));

  await drawActions();
  if (!me) return fill(games, h('tr', null, h('td', { colspan: 6, class: 'empty' }, signIn(`see ${p.username}’s games`))));
  const [active, finished] = await Promise.all([
    get<GameSummary[]>(`/games?player_id=${p.id}&status=active&limit=5`),
    get<GameSummary[]>(`/games?player_id=${p.id}&status=finished&limit=10`),
  ]);
  if (ctx.signal.aborted) return;
  const rows = [...active, ...finished];
  fill(games, rows.length
    ? rows.map((g) => h('tr', null,
      h('td', null, formatDate(g.created_at)),
      h('td', null, userLink(g.white_player?.username)),
      h('td', null, userLink(g.black_player?.username)),
      h('td', null, g.status === 'active' ? 'playing' : (g.result ?? '')),
      h('td', null, describeKind(g)),
      h('td', null, h('a', { href: `/play/${g.id}` }, g.status === 'active' ? 'Watch' : 'View'))))
    : h('tr', null, h('td', { colspan: 6, class: 'empty' }, 'No games yet.')));
}
