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
import { AttemptResultView, DailyPuzzleView, PuzzleStepContinueView, PuzzleStepEndView, PuzzleView } from '../services/puzzleViews.ts';
import { StandingView, TournamentSummaryView, TournamentView } from '../services/tournamentViews.ts';
import { PrivateProfile, PublicProfile } from '../services/users.ts';
import { FeaturedGameView, LiveGameView, LivePlayerView } from '../services/watching.ts';
import { DeliveryView, WebhookView } from '../services/webhooks.ts';
import { AnalysisPendingView, GameAnalysisView } from './routes/analysis.ts';

/**
 * The component names of the OpenAPI document (src/http/openapi.ts) that a generated client shows
 * (each operation's `operationId` is a field of its route).
 */

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
  [LivePlayerView, 'LivePlayer'],
  [LiveGameView, 'LiveGame'],
  [FeaturedGameView, 'FeaturedGame'],
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
  [PuzzleStepContinueView, 'PuzzleStepContinue'],
  [PuzzleStepEndView, 'PuzzleStepEnd'],
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
