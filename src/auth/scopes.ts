import { AppError } from '../errors.ts';

/**
 * What a personal access token may be allowed to do (DESIGN 2.12). An access token of a session
 * may do everything; a personal token only what its scopes name. Reads of public data need none.
 */
export const SCOPES = [
  'games:read',
  'games:play',
  'social:write',
  'puzzles:write',
  'tournaments:write',
  'webhooks:write',
  'account:read',
  // Lichess's, for its API on its own paths (DESIGN 2.13, src/lichess).
  'board:play',
  'bot:play',
  'challenge:read',
  'challenge:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * The caller of a request or socket: from a verified access token of a live session, or from a
 * personal access token (DESIGN 2.12). `sessionId` is what a revocation names: the session, or
 * the personal token's id. `scopes` is set only for a personal token.
 * `expiresAt` (ms): when the credential stops working (the access token's `exp` or the session's
 * absolute end, whichever is first; a personal token's `expires_at`), absent when it never does;
 * a socket opened with it closes then (src/services/liveCredentials.ts).
 */
export type AuthUser = { id: string; email: string; sessionId: string; scopes?: readonly Scope[]; expiresAt?: number };

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'games:read': 'read your games, their chats, and your user: channel (personal events)',
  'games:play': 'challenges, seeks, moves, resign, draws, takebacks, rematches, abort, claim, chat (REST and rooms)',
  'social:write': 'friends and clubs',
  'puzzles:write': 'puzzle attempts',
  'tournaments:write': 'create, join and withdraw from tournaments',
  'webhooks:write': 'manage webhooks (and read them: they hold secrets)',
  'account:read': 'your private profile and friend list',
  'board:play': "Lichess's Board API: play your games from a board app or a script (its event stream, moves, draws, chat)",
  'bot:play': "Lichess's Bot API: play as a bot account (its event stream, moves, chat)",
  'challenge:read': "Lichess's challenges: read the challenges you sent and received",
  'challenge:write': "Lichess's challenges: send, accept, decline and cancel challenges",
};

/** Whether the caller may do what `scope` covers: always with a session's token. */
export const hasScope = (user: AuthUser, scope: Scope): boolean => user.scopes === undefined || user.scopes.includes(scope);

/**
 * The caller as a reader of their own games' private parts (a pending game, the player chat):
 * a personal token without games:read sees games as anyone does (DESIGN 2.12). The one rule for
 * REST reads, streams, realtime subscriptions and rooms.
 */
export const gameReader = (user: AuthUser | undefined): AuthUser | undefined => (user && hasScope(user, 'games:read') ? user : undefined);

export const missingScope = (scope: Scope) =>
  new AppError('MISSING_SCOPE', `This personal access token lacks the scope ${scope}`, { scope: [scope] });

/** Throws 403 MISSING_SCOPE (`details.scope`) when a personal token lacks `scope`. */
export function requireScope(user: AuthUser, scope: Scope): void {
  if (!hasScope(user, scope)) throw missingScope(scope);
}

/** Throws 403 SESSION_REQUIRED for a personal token: what only a signed-in person may do. */
export function requireSession(user: AuthUser): void {
  if (user.scopes !== undefined) throw new AppError('SESSION_REQUIRED', 'A personal access token cannot do this: sign in');
}
