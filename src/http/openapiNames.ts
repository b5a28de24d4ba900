import { zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import { EmailChangeResult, LoginResult, SignupResult, TokenPairResult, VerifyResult } from '../services/accounts.ts';
import { ChatMessageView, ChatMuteView } from '../services/chatViews.ts';
import { ClubInvitationView, ClubMemberView, ClubView } from '../services/clubViews.ts';
import { FriendListItem, FriendshipView } from '../services/friends.ts';
import { CreatedPersonalToken, PersonalTokenView } from '../services/personalTokens.ts';
import {
  DrawAnswerResult,
  DrawOfferResult,
  DrawOfferView,
  GameDetail,
  GameEndResult,
  GameListItem,
  ListPlayerView,
  MoveResult,
  MoveRowView,
  MoveView,
  PendingGameView,
  PendingRematchView,
  PlayerView,
  RatingChanges,
  RematchView,
  TakebackAnswerResult,
  TakebackOfferResult,
  TakebackView,
} from '../services/gameViews.ts';
import { AttemptResultView, DailyPuzzleView, PuzzleView } from '../services/puzzleViews.ts';
import { StandingView, TournamentSummaryView, TournamentView } from '../services/tournamentViews.ts';
import { PrivateProfile, PublicProfile } from '../services/users.ts';
import { DeliveryView, WebhookView } from '../services/webhooks.ts';
import { AnalysisPendingView, GameAnalysisView } from './routes/analysis.ts';
import type { Route } from './route.ts';

/**
 * The names of the OpenAPI document (src/http/openapi.ts) that a generated client shows: each
 * operation's `operationId` and each shared schema's component name.
 */

/**
 * `operationId` by "METHOD path": stable camelCase names a generated client's functions take. A
 * route missing here gets one made of its method and path (`postAccountTokens`): give it a name.
 */
export const OPERATION_IDS: Record<string, string> = {
  'POST /auth/signup': 'signUp',
  'POST /auth/login': 'logIn',
  'GET /auth/oauth/google': 'logInWithGoogle',
  'POST /auth/logout': 'logOut',
  'POST /auth/refresh': 'refreshSession',
  'POST /auth/password/reset': 'requestPasswordReset',
  'POST /auth/password/update': 'resetPassword',
  'POST /auth/verify': 'verifyEmail',
  'POST /auth/verify/resend': 'resendVerification',
  'POST /account/tokens': 'createPersonalToken',
  'GET /account/tokens': 'listPersonalTokens',
  'DELETE /account/tokens/:id': 'deletePersonalToken',
  'GET /users/me': 'getMe',
  'PATCH /users/me': 'updateMe',
  'POST /users/me/password': 'changePassword',
  'POST /users/me/email': 'changeEmail',
  'GET /users/by-username/:username': 'getUserByUsername',
  'GET /users/search': 'searchUsers',
  'GET /users/:id': 'getUser',
  'GET /users/:id/avatar.svg': 'getAvatar',
  'GET /users/:id/games/export': 'exportUserGames',
  'POST /games': 'createGame',
  'GET /games': 'listGames',
  'GET /games/:id': 'getGame',
  'GET /games/:id/pgn': 'getGamePgn',
  'POST /games/:id/accept': 'acceptChallenge',
  'POST /games/:id/decline': 'declineChallenge',
  'POST /games/:id/cancel': 'cancelChallenge',
  'POST /games/:id/moves': 'makeMove',
  'POST /games/:id/resign': 'resign',
  'POST /games/:id/draw': 'offerDraw',
  'POST /games/:id/draw/:offer_id': 'answerDraw',
  'POST /games/:id/rematch': 'requestRematch',
  'POST /games/:id/abort': 'abortGame',
  'POST /games/:id/claim': 'claimGame',
  'POST /games/:id/takeback': 'offerTakeback',
  'POST /games/:id/takeback/:takeback_id': 'answerTakeback',
  'POST /games/:id/chat': 'sendChat',
  'GET /games/:id/chat': 'listChat',
  'POST /games/:id/chat/mute': 'muteChat',
  'DELETE /games/:id/chat/mute': 'unmuteChat',
  'GET /games/:id/analysis': 'getAnalysis',
  'POST /webhooks': 'createWebhook',
  'GET /webhooks': 'listWebhooks',
  'GET /webhooks/:id': 'getWebhook',
  'DELETE /webhooks/:id': 'deleteWebhook',
  'GET /webhooks/:id/deliveries': 'listWebhookDeliveries',
  'POST /webhooks/:id/test': 'testWebhook',
  'GET /friends': 'listFriends',
  'POST /friends/:user_id': 'requestFriend',
  'DELETE /friends/:user_id': 'removeFriend',
  'POST /clubs': 'createClub',
  'GET /clubs': 'listClubs',
  'GET /clubs/:id': 'getClub',
  'DELETE /clubs/:id': 'deleteClub',
  'GET /clubs/:id/members': 'listClubMembers',
  'POST /clubs/:id/join': 'joinClub',
  'POST /clubs/:id/leave': 'leaveClub',
  'POST /clubs/:id/invites': 'inviteToClub',
  'GET /puzzles': 'listPuzzles',
  'GET /puzzles/daily': 'getDailyPuzzle',
  'GET /puzzles/next': 'getNextPuzzle',
  'GET /puzzles/:id': 'getPuzzle',
  'POST /puzzles/:id/attempt': 'attemptPuzzle',
  'POST /tournaments': 'createTournament',
  'GET /tournaments': 'listTournaments',
  'GET /tournaments/:id': 'getTournament',
  'GET /tournaments/:id/standings': 'getTournamentStandings',
  'POST /tournaments/:id/join': 'joinTournament',
  'POST /tournaments/:id/withdraw': 'withdrawFromTournament',
};

/** The route's operationId: its name above, else `getUsersByIdGamesExport` made of its method and path. */
export function operationIdOf(r: Route): string {
  const named = OPERATION_IDS[`${r.method.toUpperCase()} ${r.path}`];
  if (named) return named;
  const words = r.path.split(/[^A-Za-z0-9:]+/).filter(Boolean).map((w) => (w.startsWith(':') ? `by_${w.slice(1)}` : w));
  return [r.method, ...words.flatMap((w) => w.split('_'))].map((w, i) => (i ? w.charAt(0).toUpperCase() + w.slice(1) : w)).join('');
}

/**
 * Component names of the shared schemas, given in place (zod's registry keyed by the very schema
 * the routes use), so every use of one becomes a `$ref` and a generated client has a `Game` type.
 */
const COMPONENTS: [z.ZodType, string][] = [
  // Parts first: a component is generated before the shapes that hold it.
  [PlayerView, 'Player'],
  [ListPlayerView, 'ListPlayer'],
  [MoveRowView, 'MoveRow'],
  [DrawOfferView, 'DrawOffer'],
  [RematchView, 'Rematch'],
  [TakebackView, 'Takeback'],
  [RatingChanges, 'RatingChanges'],
  [MoveView, 'Move'],
  [GameDetail, 'Game'],
  [GameListItem, 'GameListItem'],
  [PendingGameView, 'PendingGame'],
  [PendingRematchView, 'PendingRematch'],
  [MoveResult, 'MoveResult'],
  [GameEndResult, 'GameEndResult'],
  [DrawOfferResult, 'DrawOfferResult'],
  [DrawAnswerResult, 'DrawAnswerResult'],
  [TakebackOfferResult, 'TakebackOfferResult'],
  [TakebackAnswerResult, 'TakebackAnswerResult'],
  [GameAnalysisView, 'GameAnalysis'],
  [AnalysisPendingView, 'AnalysisPending'],
  [PrivateProfile, 'User'],
  [PublicProfile, 'PublicUser'],
  [SignupResult, 'SignupResult'],
  [LoginResult, 'LoginResult'],
  [TokenPairResult, 'TokenPair'],
  [VerifyResult, 'VerifyResult'],
  [EmailChangeResult, 'EmailChangeResult'],
  [ChatMessageView, 'ChatMessage'],
  [ChatMuteView, 'ChatMute'],
  [ClubView, 'Club'],
  [ClubMemberView, 'ClubMember'],
  [ClubInvitationView, 'ClubInvitation'],
  [FriendshipView, 'Friendship'],
  [FriendListItem, 'FriendListItem'],
  [PuzzleView, 'Puzzle'],
  [DailyPuzzleView, 'DailyPuzzle'],
  [AttemptResultView, 'PuzzleAttemptResult'],
  [TournamentView, 'Tournament'],
  [TournamentSummaryView, 'TournamentSummary'],
  [StandingView, 'Standing'],
  [PersonalTokenView, 'PersonalToken'],
  [CreatedPersonalToken, 'CreatedPersonalToken'],
  [WebhookView, 'Webhook'],
  [DeliveryView, 'WebhookDelivery'],
];

/**
 * Names a schema as a component, in zod-to-openapi's registry of the very instance (what
 * `.openapi(name)` does to a copy), so the routes' own schemas become `$ref`s. Idempotent.
 */
export function nameSchema(schema: z.ZodType, id: string): void {
  const meta = zodToOpenAPIRegistry.get(schema) as { _internal?: { refId?: string } } | undefined;
  const named = meta?._internal?.refId;
  if (named === id) return;
  if (named) throw new Error(`schema already named ${named}, not ${id}`);
  zodToOpenAPIRegistry.add(schema, { ...meta, _internal: { ...meta?._internal, refId: id } });
}

/**
 * The shared schemas, named, as generator definitions to put before every other: a component is
 * made from the schema itself, never from its first use (which may be `.nullable()`).
 */
export function componentDefinitions(): { type: 'schema'; schema: z.ZodType }[] {
  return COMPONENTS.map(([schema, id]) => {
    nameSchema(schema, id);
    return { type: 'schema' as const, schema };
  });
}
