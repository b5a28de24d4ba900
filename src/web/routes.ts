// Every page of the app. The server answers each path with the app's shell (APP_PATHS in
// src/http/web.ts lists the same paths). `nav` puts a page in the navigation bar.
//
// Puzzles and tournaments are built on other branches: each adds its page here when it lands,
// e.g. `{ path: '/puzzles', title: 'Puzzles', nav: 'Puzzles', render: puzzlesPage }` and
// `{ path: '/tournaments', title: 'Tournaments', nav: 'Tournaments', render: tournamentsPage }`
// (plus `/tournaments/:id`), and their paths in APP_PATHS.

import { analysisPage } from './pages/analysis.ts';
import { loginPage, signupPage } from './pages/auth.ts';
import { clubPage, clubsPage } from './pages/clubs.ts';
import { friendsPage } from './pages/friends.ts';
import { gamesPage } from './pages/games.ts';
import { lobbyPage } from './pages/lobby.ts';
import { playPage } from './play/playPage.ts';
import type { PageContext, PageDef } from './router.ts';

export type Go = (path: string, o?: { replace?: boolean }) => void;
export type AppPageContext = PageContext & { go: Go };

export function appRoutes(go: Go): PageDef[] {
  const withGo = (render: (ctx: AppPageContext) => void | Promise<void>) => (ctx: PageContext) => render({ ...ctx, go });
  return [
    { path: '/', title: 'Play', nav: 'Play', render: withGo(lobbyPage) },
    { path: '/login', title: 'Log in', render: withGo(loginPage) },
    { path: '/signup', title: 'Sign up', render: withGo(signupPage) },
    { path: '/play/:id', title: 'Game', render: withGo(playPage) },
    { path: '/games', title: 'My games', nav: 'My games', auth: true, render: withGo(gamesPage) },
    { path: '/analysis/:id', title: 'Analysis', auth: true, render: withGo(analysisPage) },
    { path: '/friends', title: 'Friends', nav: 'Friends', auth: true, render: withGo(friendsPage) },
    { path: '/clubs', title: 'Clubs', nav: 'Clubs', render: withGo(clubsPage) },
    { path: '/clubs/:id', title: 'Club', render: withGo(clubPage) },
  ];
}
