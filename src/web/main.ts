// The web app: a page per address (src/web/routes.ts), a navigation bar, and the lobby feed and
// the user's channel that tell a signed-in user about challenges and games that start (a seek
// paired, a challenge accepted, an arena's pairing), on every page.

import './styles/app.css';
import { post } from './api.ts';
import { fill, h } from './dom.ts';
import { lobbyFeed } from './lobbyFeed.ts';
import { news } from './news.ts';
import { appRoutes, type Go } from './routes.ts';
import { Router } from './router.ts';
import { session } from './session.ts';
import { describeKind } from './timeControl.ts';
import { userFeed } from './userFeed.ts';

const app = document.getElementById('app')!;
const nav = h('nav', { class: 'site-nav', 'aria-label': 'Main' });
const notices = h('div', { class: 'notices', 'aria-live': 'polite' });
const view = h('div', { class: 'view' });
fill(app, h('a', { class: 'skip', href: '#page' }, 'Skip to content'), h('header', { class: 'site-header' }, nav), notices, view);

const go: Go = (path, o) => router.go(path, o);
const router = new Router(appRoutes(go), view, {
  signedIn: () => !!session.user(),
  notFound: {
    path: '',
    title: 'Not found',
    render: ({ root }) => fill(root, h('h1', null, 'Nothing here'), h('p', null, h('a', { href: '/' }, 'Back to the lobby'))),
  },
});

// One line on a phone: the brand, the signed-in name and a menu button that opens the links.
let menuOpen = false;
function drawNav(): void {
  const user = session.user();
  const links = appRoutes(go).filter((r) => r.nav && (!r.auth || user));
  nav.classList.toggle('open', menuOpen);
  const toggle = h('button', {
    type: 'button', class: 'menu-toggle', 'aria-expanded': String(menuOpen), 'aria-controls': 'nav-menu',
    onclick: () => {
      menuOpen = !menuOpen;
      drawNav();
    },
  }, h('span', { 'aria-hidden': 'true' }, menuOpen ? '✕ ' : '☰ '), 'Menu');
  fill(
    nav,
    h('a', { class: 'brand', href: '/' }, h('span', { 'aria-hidden': 'true' }, '♞ '), 'Chess'),
    user ? h('a', { class: 'me', href: `/@/${encodeURIComponent(user.username)}` }, user.username) : null,
    toggle,
    h('div', { id: 'nav-menu', class: 'menu' },
      h('ul', null, links.map((r) => h('li', null, h('a', { href: r.path, 'aria-current': location.pathname === r.path ? 'page' : undefined }, r.nav!)))),
      h('ul', { class: 'account' },
        h('li', null, h('a', { href: '/docs' }, 'API')),
        user
          ? [h('li', null, h('a', { href: '/settings', 'aria-current': location.pathname === '/settings' ? 'page' : undefined }, 'Settings')),
            h('li', null, h('button', { type: 'button', class: 'link', onclick: logout }, 'Log out'))]
          : [h('li', null, h('a', { href: '/login' }, 'Log in')), h('li', null, h('a', { href: '/signup' }, 'Sign up'))])),
  );
}

async function logout(): Promise<void> {
  // The API ends the session (every token of it); then the tokens are forgotten here.
  await post('/auth/logout').catch(() => {});
  session.clear();
  go('/');
}

/** Challenges to me, on every page but the lobby (which lists them itself), and the news. */
function drawNotices(): void {
  const incoming = session.user() && location.pathname !== '/' ? lobbyFeed.challenges.filter((c) => c.direction === 'incoming') : [];
  fill(notices,
    incoming.map((c) =>
      h('p', { class: 'notice' }, `${c.from.username} challenges you (${describeKind(c)}). `,
        h('a', { href: `/play/${c.id}` }, 'See the challenge'))),
    news.items().map((n) =>
      h('p', { class: 'notice' }, n.text, ' ', n.link ? h('a', { href: n.link[1] }, n.link[0]) : null, ' ',
        h('button', { type: 'button', class: 'link dismiss', 'aria-label': 'Dismiss', onclick: () => news.dismiss(n) }, '✕'))));
}

// News from the user's channel (and from pages: a signup's confirmation mail) gets a line on any page.
news.onChange(drawNotices);

userFeed.onMessage((m) => {
  const name = (o: unknown) => (o as { username?: string } | undefined)?.username ?? 'Someone';
  if (m.type === 'friend_request') news.add(`${name(m.from)} wants to be your friend.`, location.pathname === '/friends' ? undefined : ['See the request', '/friends']);
  else if (m.type === 'friend_accepted') news.add(`${name(m.user)} accepted your friend request.`);
  else if (m.type === 'challenge_declined') news.add(`${name(m.by)} declined your challenge.`);
});

session.onChange(() => {
  drawNav();
  void lobbyFeed.connect();
  userFeed.connect();
  router.refresh();
});
router.onChange(() => {
  menuOpen = false;
  drawNav();
  drawNotices();
});
lobbyFeed.subscribe(drawNotices);
// A seek was paired or a challenge accepted: to the board.
lobbyFeed.onGameStarted((gameId) => {
  if (location.pathname !== `/play/${gameId}`) go(`/play/${gameId}`);
});
// An arena paired the player: to the board at once (the first move has a deadline).
// A finished arena game's board may hold it a few seconds (userFeed.holdPairings).
userFeed.onTournamentPairing((p) => {
  if (location.pathname !== `/play/${p.game_id}` && !userFeed.deferPairing(p)) go(`/play/${p.game_id}`);
});

drawNav();
void lobbyFeed.connect();
userFeed.connect();
router.refresh();
