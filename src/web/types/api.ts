// The API's objects as the app reads them (README and /docs are the reference; the app is its
// own client and shares no code with the server, which is the point: the public API suffices).

export type Color = 'white' | 'black';
export type GameStatus = 'pending' | 'active' | 'finished' | 'abandoned';
export type TimeControl = 'bullet' | 'blitz' | 'rapid' | 'classical' | 'correspondence';
export type RatingChanges = { white: number; black: number };

export type Player = { id: string; username: string; rating: number; avatar_url: string; country?: string | null };
export type MoveRow = { number: number; white: string; black: string | null; white_time: number; black_time: number | null };
export type DrawOffer = { id: string; offered_by: string; status: 'pending' | 'accepted' | 'declined' | 'expired'; expires_at: string };

export type GameSummary = {
  id: string;
  white_player: Player | null;
  black_player: Player | null;
  status: GameStatus;
  time_control: TimeControl;
  initial_time: number;
  increment: number;
  current_turn: Color;
  move_count: number;
  fen: string;
  white_time_remaining: number;
  black_time_remaining: number;
  created_at: string;
  updated_at: string;
  result: '1-0' | '0-1' | '1/2-1/2' | null;
  winner: Color | null;
  tournament_id?: string | null;
  direction?: 'incoming' | 'outgoing';
  /** Correspondence games: the days each move may take (null for a clocked game). */
  days_per_move?: number | null;
};

export type GameDetail = GameSummary & {
  termination: string | null;
  rated: boolean;
  pgn: string;
  moves: MoveRow[];
  abort_reason: string | null;
  rating_changes: RatingChanges | null;
  draw_offer: DrawOffer | null;
  expires_at: string | null;
  /** The finished game this one is a rematch of. */
  rematch_of?: string | null;
  /** A finished game's rematch, once someone asked. */
  rematch?: Rematch | null;
};

export type Rematch = { game_id: string; offered_by: string; status: 'pending' | 'accepted' | 'declined' | 'cancelled' | 'expired' };

export type ChatRoom = 'player' | 'spectator';
export type ChatMessage = { id: string; room: ChatRoom; user: { id: string; username: string }; text: string; created_at: string };

export type PendingGame = { id: string; status: 'pending'; expires_at: string; invite_url: string };

export type Profile = {
  id: string;
  username: string;
  rating: number;
  ratings: Record<TimeControl, number>;
  stats: { games: number; wins: number; losses: number; draws: number };
};

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

export type AnalysedMove = { san: string; evaluation: number; mate: number | null; best_move: string | null; classification: string };
export type Analysis = {
  game_id: string;
  engine: string;
  depth: number;
  accuracy: { white: number | null; black: number | null };
  mistakes: RatingChanges;
  blunders: RatingChanges;
  moves: { move_number: number; white: AnalysedMove | null; black: AnalysedMove | null }[];
  opening: { name: string; eco: string; moves: string } | null;
};

export type Friend = {
  user: { id: string; username: string; avatar_url: string; rating: number };
  status: 'friends' | 'incoming' | 'outgoing';
  since: string;
  /** Friends only; null on requests. */
  online: boolean | null;
};

export type Club = {
  id: string;
  name: string;
  description: string | null;
  open: boolean;
  owner: { id: string; username: string };
  member_count: number;
  created_at: string;
  role: 'owner' | 'member' | 'invited' | null;
};
export type ClubMember = { user: { id: string; username: string }; role: 'owner' | 'member'; joined_at: string };

export type Puzzle = {
  id: string;
  fen: string;
  last_move: string;
  color: Color;
  rating: number;
  rating_deviation: number;
  popularity: number;
  plays: number;
  themes: string[];
  opening_tags: string[];
  game_url: string;
};
export type DailyPuzzle = { date: string; puzzle: Puzzle };
export type AttemptResult = {
  correct: boolean;
  solution: string[];
  first_attempt: boolean;
  rating_change: number;
  user_rating: number;
  puzzle_rating: number;
};

export type TournamentStatus = 'upcoming' | 'running' | 'finished';
export type Standing = {
  rank: number;
  user: { id: string; username: string };
  score: number;
  games: number;
  wins: number;
  draws: number;
  losses: number;
  streak: number;
  performance: number | null;
  withdrawn: boolean;
};
export type TournamentSummary = {
  id: string;
  name: string;
  creator: { id: string; username: string };
  time_control: TimeControl;
  initial_time: number;
  increment: number;
  rated: boolean;
  starts_at: string;
  ends_at: string;
  status: TournamentStatus;
  player_count: number;
  max_players: number | null;
  joined: boolean;
  standings_total: number;
};
export type Tournament = TournamentSummary & { standings: Standing[] };
