// Every page of the app. The server answers each path with the app's shell (APP_PATHS in
// src/http/web.ts lists the same paths). `nav` puts a page in the navigation bar. An area that
// lands later adds its pages here and their paths in APP_PATHS.

import { analysisPage } from './pages/analysis.ts';
import { confirmEmailPage, forgotPasswordPage, loginPage, signupPage } from './pages/auth.ts';
import { clubPage, clubsPage } from './pages/clubs.ts';
import { friendsPage } from './pages/friends.ts';
import { gamesPage } from './pages/games.ts';
import { lobbyPage } from './pages/lobby.ts';
import { profilePage } from './pages/profile.ts';
import { puzzlePage, puzzlesPage } from './pages/puzzles.ts';
import { settingsPage } from './pages/settings.ts';
import { tokensPage } from './pages/tokens.ts';
import { tournamentPage } from './pages/tournament.ts';
import { tournamentsPage } from './pages/tournaments.ts';
import { watchPage } from './pages/watch.ts';
import { playPage } from './play/playPage.ts';
import type { PageContext, PageDef } from './router.ts';

export type Go = (path: string, o?: { replace?: boolean }) => void;
export type AppPageContext = PageContext & { go: Go };

export function appRoutes(go: Go): PageDef[] {
  const withGo = (render: (ctx: AppPageContext) => void | Promise<void>) => (ctx: PageContext) => render({ ...ctx, go });
  return [
    { path: '/', title: 'Play', nav: 'Play', render: withGo(lobbyPage) },
    { path: '/watch', title: 'Watch', nav: 'Watch', render: withGo(watchPage) },
    { path: '/login', title: 'Log in', render: withGo(loginPage) },
    { path: '/signup', title: 'Sign up', render: withGo(signupPage) },
    { path: '/play/:id', title: 'Game', render: withGo(playPage) },
    { path: '/games', title: 'My games', nav: 'My games', auth: true, render: withGo(gamesPage) },
    { path: '/analysis/:id', title: 'Analysis', render: withGo(analysisPage) },
    { path: '/friends', title: 'Friends', nav: 'Friends', auth: true, render: withGo(friendsPage) },
    { path: '/clubs', title: 'Clubs', nav: 'Clubs', render: withGo(clubsPage) },
    { path: '/clubs/:id', title: 'Club', render: withGo(clubPage) },
    { path: '/puzzles', title: 'Puzzles', nav: 'Puzzles', render: withGo(puzzlesPage) },
    { path: '/puzzles/:id', title: 'Puzzle', render: withGo(puzzlePage) },
    { path: '/tournaments', title: 'Tournaments', nav: 'Tournaments', render: withGo(tournamentsPage) },
    { path: '/tournaments/:id', title: 'Tournament', render: withGo(tournamentPage) },
    { path: '/@/:username', title: (p) => p.username, render: withGo(profilePage) },
    { path: '/settings', title: 'Settings', auth: true, render: withGo(settingsPage) },
    { path: '/settings/tokens', title: 'Personal access tokens', auth: true, render: withGo(tokensPage) },
    { path: '/forgot-password', title: 'Forgot your password?', render: withGo(forgotPasswordPage) },
    { path: '/confirm-email', title: 'Confirm your email', render: withGo(confirmEmailPage) },
  ];
}
