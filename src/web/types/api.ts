// The API's objects as the app reads them: names for the schemas of the OpenAPI document. Their
// declarations (chessApi.d.ts) are what openapi-typescript makes of the served document, and a
// test fails when they are stale (test/http/openapi.client.test.ts). The app shares no code with
// the server, which is the point: the public API suffices.

import type { components } from './chessApi.d.ts';

type Schemas = components['schemas'];

export type GameDetail = Schemas['Game'];
/** A game as the lists (`GET /games`) give it. */
export type GameSummary = Schemas['GameListItem'];
export type Color = GameDetail['current_turn'];
export type GameStatus = GameDetail['status'];
export type TimeControl = GameDetail['time_control'];
export type RatingChanges = Schemas['RatingChanges'];
export type DrawOffer = Schemas['DrawOffer'];
export type Takeback = Schemas['Takeback'];
export type GameEndResult = Schemas['GameEndResult'];
export type Rematch = Schemas['Rematch'];
export type PendingGame = Schemas['PendingGame'];
/** DESIGN 2.14: a live game as `GET /games/live` lists it, and the TV's featured game (`GET /tv`). */
export type LiveGame = Schemas['LiveGame'];
export type LivePlayer = Schemas['LivePlayer'];
export type FeaturedGame = Schemas['FeaturedGame'];
/** `POST /games/{id}/rematch`'s challenge. */
export type PendingRematch = Schemas['PendingRematch'];

export type ChatMessage = Schemas['ChatMessage'];
export type ChatRoom = ChatMessage['room'];

export type Analysis = Schemas['GameAnalysis'];
/** `GET /games/{id}/analysis` while the analysis is made (202). */
export type AnalysisPending = Schemas['AnalysisPending'];
export type AnalysedMove = NonNullable<Analysis['moves'][number]['white']>;

/** The caller's own profile (`GET /users/me`). */
export type User = Schemas['User'];
export type PublicUser = Schemas['PublicUser'];
export type TokenPair = Schemas['TokenPair'];
export type LoginResult = Schemas['LoginResult'];
export type SignupResult = Schemas['SignupResult'];
export type EmailChangeResult = Schemas['EmailChangeResult'];
export type PersonalToken = Schemas['PersonalToken'];
/** A personal token as made: the only answer that shows the token itself. */
export type CreatedPersonalToken = Schemas['CreatedPersonalToken'];

export type Friend = Schemas['FriendListItem'];
export type Club = Schemas['Club'];
export type ClubMember = Schemas['ClubMember'];

export type Puzzle = Schemas['Puzzle'];
export type DailyPuzzle = Schemas['DailyPuzzle'];
/** A step's answer: the solution's next reply, or the run's end with the attempt's answer. */
export type PuzzleStep = Schemas['PuzzleStepContinue'] | Schemas['PuzzleStepEnd'];
export type PuzzleStepEnd = Schemas['PuzzleStepEnd'];

export type Tournament = Schemas['Tournament'];
export type TournamentSummary = Schemas['TournamentSummary'];
export type TournamentStatus = Tournament['status'];
export type Standing = Schemas['Standing'];

export type Pagination = Schemas['Pagination'];

// The lobby room's state and messages are the room protocol (docs/protocol.md), which the
// OpenAPI document does not describe.

/** A pending challenge, as the lobby room's `challenges` message lists it. */
export type Challenge = {
  id: string;
  from: { id: string; username: string };
  to: { id: string; username: string };
  time_control: TimeControl;
  initial_time: number;
  increment: number;
  rated: boolean;
  color: 'white' | 'black' | 'random';
  expires_at: string;
  direction: 'incoming' | 'outgoing';
};

/** An open seek of the lobby room's state (rooms/schema/LobbyState.ts's SeekState). */
export type Seek = {
  id: string;
  userId: string;
  username: string;
  rating: number;
  timeControl: TimeControl;
  initialTime: number;
  increment: number;
  rated: boolean;
  color: string;
  expiresAt: number;
};
