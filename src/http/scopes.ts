import type { Scope } from '../auth/scopes.ts';
import type { Route } from './route.ts';

/**
 * What a personal access token needs for each route that takes a token (DESIGN 2.12), in one
 * table so that a review (and test/http/personalTokens.routes.test.ts) sees every decision:
 * - a scope: the token must have it;
 * - `public`: a read of public data, which needs no scope;
 * - `session`: only a signed-in person may do it (the password, the email, the profile, personal
 *   tokens themselves, logout); a personal token gets 403 `SESSION_REQUIRED`.
 * A route missing here refuses personal tokens (as `session`), and the test fails.
 */
export type ScopeDecision = Scope | 'public' | 'session';

export const ROUTE_SCOPES: Record<string, ScopeDecision> = {
  // Accounts
  'POST /auth/logout': 'session',
  'GET /users/me': 'account:read',
  'PATCH /users/me': 'session',
  'POST /users/me/password': 'session',
  'POST /users/me/email': 'session',
  'GET /users/by-username/:username': 'public',
  'GET /users/search': 'public',
  'GET /users/:id': 'public',
  'GET /users/:id/games/export': 'public',
  'POST /account/tokens': 'session',
  'GET /account/tokens': 'session',
  'DELETE /account/tokens/:id': 'session',
  // Games: a game's detail, moves and analysis are public (anyone may watch); the list is the caller's.
  'POST /games': 'games:play',
  'GET /games': 'games:read',
  'GET /games/:id': 'public',
  'GET /games/:id/pgn': 'public',
  'GET /games/:id/analysis': 'public',
  'POST /games/:id/moves': 'games:play',
  'PATCH /games/:id/move': 'games:play',
  'POST /games/:id/accept': 'games:play',
  'POST /games/:id/decline': 'games:play',
  'POST /games/:id/cancel': 'games:play',
  'POST /games/:id/resign': 'games:play',
  'POST /games/:id/draw': 'games:play',
  'POST /games/:id/draw/:offer_id': 'games:play',
  'POST /games/:id/rematch': 'games:play',
  'POST /games/:id/abort': 'games:play',
  'POST /games/:id/claim': 'games:play',
  'POST /games/:id/takeback': 'games:play',
  'POST /games/:id/takeback/:takeback_id': 'games:play',
  'POST /games/:id/chat': 'games:play',
  'GET /games/:id/chat': 'games:read',
  'POST /games/:id/chat/mute': 'games:play',
  'DELETE /games/:id/chat/mute': 'games:play',
  // Social
  'GET /friends': 'account:read',
  'POST /friends/:user_id': 'social:write',
  'DELETE /friends/:user_id': 'social:write',
  'POST /clubs': 'social:write',
  'GET /clubs': 'public',
  'GET /clubs/:id': 'public',
  'GET /clubs/:id/members': 'public',
  'POST /clubs/:id/join': 'social:write',
  'POST /clubs/:id/leave': 'social:write',
  'POST /clubs/:id/invites': 'social:write',
  'DELETE /clubs/:id': 'social:write',
  // Puzzles
  'GET /puzzles': 'public',
  'GET /puzzles/daily': 'public',
  'GET /puzzles/next': 'public',
  'GET /puzzles/:id': 'public',
  'POST /puzzles/:id/attempt': 'puzzles:write',
  // Tournaments
  'POST /tournaments': 'tournaments:write',
  'GET /tournaments': 'public',
  'GET /tournaments/:id': 'public',
  'GET /tournaments/:id/standings': 'public',
  'POST /tournaments/:id/join': 'tournaments:write',
  'POST /tournaments/:id/withdraw': 'tournaments:write',
  // Webhooks: all of them, reads too (a webhook holds its signing secret).
  'POST /webhooks': 'webhooks:write',
  'GET /webhooks': 'webhooks:write',
  'GET /webhooks/:id': 'webhooks:write',
  'DELETE /webhooks/:id': 'webhooks:write',
  'GET /webhooks/:id/deliveries': 'webhooks:write',
  'POST /webhooks/:id/test': 'webhooks:write',
};

export const routeKey = (r: Pick<Route, 'method' | 'path'>) => `${r.method.toUpperCase()} ${r.path}`;

/** The route's decision; a route the table does not name refuses personal tokens. */
export const scopeDecision = (r: Pick<Route, 'method' | 'path'>): ScopeDecision => ROUTE_SCOPES[routeKey(r)] ?? 'session';
