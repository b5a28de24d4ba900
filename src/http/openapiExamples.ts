// Examples for the API reference: a request body (or several, by name) and the `data` of the
// success answer of every route, keyed "METHOD path" as the route declares it. They describe one
// small story (ada challenges bob to a 5+3 blitz game, 1. e4 e5 2. Nf3), and a test holds each
// of them to the route's own zod schema, so an example cannot drift from what the API accepts
// and sends. A new route adds its entry here (the test names any route without one).

export type RouteExamples = {
  /** Request bodies by name; the reference offers a choice when there are several. */
  request?: Record<string, { summary: string; value: unknown }>;
  /** The `data` of the success envelope, or the text of a raw answer (PGN, SVG). */
  response?: unknown;
};

const BASE = 'http://localhost:2567';
const ADA = 'c5f1d7a2-8e3b-4f6a-9d2c-1b7e4a9f3c60';
const BOB = '7e2a9c41-5b3d-4e8f-a1c6-0d9b8f7e6a52';
const GAME = '3b1f7c9e-2a4d-4c6b-8e5f-9a0d1c2b3e4f';
const REMATCH = '5d2e8a1c-7b3f-4e9d-a6c0-1f4b8e2d9c7a';
const OFFER = '9d4e2b7a-1c3f-4a5b-8c6d-7e8f9a0b1c2d';
const TAKEBACK = '2c7d9e1f-4b6a-4d8c-9e2f-5a7b3c1d0e9f';
const CLUB = '5a6b7c8d-9e0f-4a1b-9c2d-3e4f5a6b7c8d';
const WEBHOOK = 'e1d2c3b4-a596-4786-b9a0-c1d2e3f4a5b6';
const PERSONAL_TOKEN = '8f3a2b1c-6d5e-4f70-8a9b-0c1d2e3f4a5b';
const NOW = '2026-11-23T18:02:11.412Z';
const EARLIER = '2026-11-23T17:58:40.103Z';

const ada = { id: ADA, username: 'ada' };
const bob = { id: BOB, username: 'bob' };
const player = (u: { id: string; username: string }, rating: number, country: string | null) => ({
  ...u,
  rating,
  avatar_url: `${BASE}/v1/users/${u.id}/avatar.svg`,
  country,
});
const ratings = { bullet: 1500, blitz: 1612, rapid: 1540, classical: 1500, correspondence: 1500 };
const profile = (u: { id: string; username: string }, rating: number) => ({
  ...u,
  full_name: u.username === 'ada' ? 'Ada Lovelace' : null,
  avatar_url: `${BASE}/v1/users/${u.id}/avatar.svg`,
  country: u.username === 'ada' ? 'GB' : null,
  rating,
  ratings: { ...ratings, blitz: rating },
  provisional: ['classical', 'correspondence'],
  stats: { games: 12, wins: 7, losses: 4, draws: 1 },
  bot: false,
  created_at: '2026-11-01T09:30:00.000Z',
  updated_at: NOW,
});
const tokens = {
  access_token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJjNWYx…',
  refresh_token: 'u4Xw2hQm0bV9sL3kT7pZ1yR8nC6dF5gJ',
  expires_in: 3600,
};
let chatId = 0;
const chatMessage = (room: 'player' | 'spectator', user: { id: string; username: string }, text: string) => ({
  id: `0c4a7e2b-3d5f-4a6b-8c9d-${String(++chatId).padStart(12, '0')}`,
  room,
  user,
  text,
  created_at: EARLIER,
});
const TC = { time_control: 'blitz', initial_time: 300, increment: 3 };
const FEN = 'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2';
const listPlayer = (u: { id: string; username: string }, rating: number) => ({ ...u, rating, avatar_url: `${BASE}/v1/users/${u.id}/avatar.svg` });
const listGame = {
  id: GAME,
  white_player: listPlayer(ada, 1612),
  black_player: listPlayer(bob, 1587),
  status: 'active',
  ...TC,
  days_per_move: null,
  current_turn: 'black',
  move_count: 3,
  fen: FEN,
  pgn: '1. e4 e5 2. Nf3',
  white_time_remaining: 301.2,
  black_time_remaining: 296.84,
  created_at: EARLIER,
  updated_at: NOW,
  result: null,
  winner: null,
  tournament_id: null,
};
/** DESIGN 2.14: the game as the live list and the TV show it (ada 1612, bob 1587, after 2. Nf3). */
const liveGame = {
  id: GAME,
  players: { white: { ...ada, rating: 1612 }, black: { ...bob, rating: 1587 } },
  average_rating: 1600,
  time_control: 'blitz',
  initial_time: 300,
  increment: 3,
  rated: true,
  fen: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2',
  last_move: 'g1f3',
  move_count: 3,
  started_at: EARLIER,
};
const gameDetail = {
  ...listGame,
  white_player: player(ada, 1612, 'GB'),
  black_player: player(bob, 1587, null),
  result: null,
  winner: null,
  termination: null,
  rated: true,
  moves: [
    { number: 1, white: 'e4', black: 'e5', white_time: 300, black_time: 300 },
    { number: 2, white: 'Nf3', black: null, white_time: 301.2, black_time: null },
  ],
  last_move_at: NOW,
  abort_reason: null,
  rating_changes: null,
  draw_offer: null,
  expires_at: null,
  rematch_of: null,
  rematch: null,
};
const pendingGame = { id: GAME, status: 'pending', expires_at: '2026-11-23T18:12:11.412Z', invite_url: `${BASE}/play/${GAME}` };
const drawOffer = { id: OFFER, offered_by: ADA, status: 'pending', expires_at: '2026-11-23T18:03:11.412Z' };
const ended = { status: 'finished', result: '1/2-1/2', winner: null, termination: 'agreement', rating_changes: { white: -2, black: 2 } };
const club = {
  id: CLUB,
  name: 'Sunday Rapid',
  description: 'Rapid games every Sunday at 18:00 UTC.',
  open: true,
  owner: ada,
  member_count: 14,
  created_at: '2026-11-02T12:00:00.000Z',
  role: 'owner',
};
const personalToken = {
  id: PERSONAL_TOKEN,
  description: 'my bot',
  scopes: ['games:read', 'games:play'],
  created_at: EARLIER,
  expires_at: null,
  last_used_at: '2026-11-23T18:02:00.000Z',
};
const webhook = {
  id: WEBHOOK,
  url: 'https://example.com/chess/webhooks',
  events: ['game.started', 'game.finished'],
  active: true,
  disabled_reason: null,
  created_at: NOW,
};
const delivery = {
  id: 'msg_2b8f1c4e9a7d',
  event: 'game.finished',
  status: 'delivered',
  attempts: 1,
  last_response_code: 200,
  last_error: null,
  next_attempt_at: null,
  created_at: NOW,
  delivered_at: NOW,
};
const analysedMove = (san: string, evaluation: number, best: string, classification: string) => ({ san, evaluation, mate: null, best_move: best, classification });

// The first puzzle of the bundled Lichess sample: 1... Qh2# after the knight took on e6.
const puzzle = {
  id: '000rZ',
  fen: '2kr1b1r/p1p2pp1/2pqN3/7p/6n1/2NPB3/PPP2PPP/R2Q1RK1 b - - 0 13',
  last_move: 'd4e6',
  color: 'black',
  rating: 633,
  rating_deviation: 93,
  popularity: 100,
  plays: 617,
  themes: ['kingsideAttack', 'mate', 'mateIn1', 'oneMove', 'opening'],
  opening_tags: ['Scandinavian_Defense', 'Scandinavian_Defense_Modern_Variation'],
  game_url: 'https://lichess.org/seIMDWkD#25',
};

const TOURNAMENT = '4c3b2a19-8d7e-4f6a-b5c4-d3e2f1a0b9c8';
const standing = (rank: number, u: { id: string; username: string }, r: { score: number; wins: number; draws: number; losses: number; streak: number; performance: number }) => ({
  rank,
  user: u,
  games: r.wins + r.draws + r.losses,
  withdrawn: false,
  ...r,
});
const arena = {
  id: TOURNAMENT,
  name: 'Monday Blitz Arena',
  creator: ada,
  ...TC,
  rated: true,
  starts_at: '2026-11-23T18:00:00.000Z',
  ends_at: '2026-11-23T19:00:00.000Z',
  status: 'running',
  player_count: 2,
  max_players: null,
  joined: true,
  standings_total: 2,
};
const standings = [
  standing(1, bob, { score: 8, wins: 3, draws: 0, losses: 1, streak: 3, performance: 1862 }),
  standing(2, ada, { score: 2, wins: 1, draws: 0, losses: 3, streak: 0, performance: 1337 }),
];

const one = (summary: string, value: unknown) => ({ example: { summary, value } });

export const EXAMPLES: Record<string, RouteExamples> = {
  // ---- authentication ----
  'POST /auth/signup': {
    request: one('A new account', { email: 'ada@example.com', password: 'correct horse 1', username: 'ada', full_name: 'Ada Lovelace' }),
    response: { user: { id: ADA, email: 'ada@example.com', username: 'ada', created_at: NOW }, session: tokens },
  },
  'POST /auth/login': {
    request: one('Email and password', { email: 'ada@example.com', password: 'correct horse 1' }),
    response: {
      user: { id: ADA, email: 'ada@example.com', username: 'ada', avatar_url: `${BASE}/v1/users/${ADA}/avatar.svg`, rating: 1612 },
      session: { ...tokens, expires_at: '2026-11-23T19:02:11.000Z' },
    },
  },
  'GET /auth/oauth/google': {},
  'POST /auth/logout': {},
  'POST /auth/refresh': { request: one('The refresh token of the last pair', { refresh_token: tokens.refresh_token }), response: tokens },
  'POST /auth/password/reset': { request: one('The account’s email', { email: 'ada@example.com' }) },
  'POST /auth/password/update': { request: one('The token from the mailed link and a new password', { token: 'Qm9uIHRva2VuIGZyb20gdGhlIG1haWw', password: 'new horse 2 battery' }) },
  'POST /auth/verify': {
    request: one('The token from the mailed link', { token: 'Vm9pbGEgdG9rZW4gZnJvbSB0aGUgbWFpbA' }),
    response: { user: { id: ADA, email: 'ada@example.com', username: 'ada', email_verified: true, created_at: '2026-11-01T09:30:00.000Z' } },
  },
  'POST /auth/verify/resend': { request: one('The account’s email', { email: 'ada@example.com' }) },

  // ---- users ----
  'GET /users/me': { response: { ...profile(ada, 1612), email: 'ada@example.com', email_verified: true, pending_email: null, puzzle_rating: 1743 } },
  'PATCH /users/me': {
    request: {
      name: { summary: 'Set a name and a country', value: { full_name: 'Ada Lovelace', country: 'GB' } },
      reset: { summary: 'Back to the generated avatar', value: { avatar_url: null } },
    },
    response: { ...profile(ada, 1612), email: 'ada@example.com', email_verified: true, pending_email: null, puzzle_rating: 1743 },
  },
  'GET /users/search': { response: [{ ...profile(ada, 1612), puzzle_rating: 1743 }] },
  'GET /users/:id': { response: { ...profile(bob, 1587), puzzle_rating: 1500 } },
  'GET /users/by-username/:username': { response: { ...profile(bob, 1587), puzzle_rating: 1500 } },
  'POST /users/me/password': {
    request: one('The current password and the new one', { current_password: 'correct horse 1 battery', new_password: 'new horse 2 battery' }),
  },
  'POST /users/me/email': {
    request: one('The new address and the password', { email: 'ada.lovelace@example.com', password: 'correct horse 1 battery' }),
    response: { email: 'ada@example.com', email_verified: true, pending_email: 'ada.lovelace@example.com' },
  },
  'GET /users/:id/avatar.svg': { response: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">…</svg>' },

  // ---- games ----
  'POST /games': {
    request: {
      challenge: { summary: 'Challenge bob to a rated 5+3 blitz game, playing White', value: { type: 'challenge', opponent_id: BOB, ...TC, rated: true, color: 'white' } },
      matchmaking: { summary: 'Seek any opponent for a 10+0 rapid game', value: { type: 'matchmaking', time_control: 'rapid', initial_time: 600, increment: 0, rated: true } },
      correspondence: {
        summary: 'Challenge bob to a correspondence game, three days a move',
        value: { type: 'challenge', opponent_id: BOB, time_control: 'correspondence', days_per_move: 3, rated: true, color: 'random' },
      },
    },
    response: pendingGame,
  },
  'GET /games/live': { response: [liveGame] },
  'GET /tv': { response: { game: { ...liveGame, orientation: 'white' } } },
  'GET /games': { response: [listGame] },
  'GET /games/:id': { response: gameDetail },
  'GET /games/:id/pgn': {
    response: `[Event "Rated blitz game"]\n[Site "${BASE}/play/${GAME}"]\n[Date "2026.11.23"]\n[Round "-"]\n[White "ada"]\n[Black "bob"]\n[Result "*"]\n[TimeControl "300+3"]\n\n1. e4 { [%clk 0:05:00] } e5 { [%clk 0:05:00] } 2. Nf3 { [%clk 0:05:01.2] } *\n`,
  },
  'GET /users/:id/games/export': {
    response:
      `[Event "Rated blitz game"]\n[Site "${BASE}/play/${GAME}"]\n[Date "2026.11.23"]\n[Round "-"]\n[White "ada"]\n[Black "bob"]\n[Result "1-0"]\n` +
      `[WhiteElo "1500"]\n[BlackElo "1500"]\n[TimeControl "300+3"]\n[Termination "resignation"]\n[WhiteRatingDiff "+6"]\n[BlackRatingDiff "-6"]\n` +
      `[ECO "C40"]\n[Opening "King's Knight Opening"]\n\n1. e4 { [%clk 0:05:00] } 1... e5 { [%clk 0:05:00] } 2. Nf3 { [%clk 0:05:01] } 1-0\n\n` +
      `[Event "Casual bullet game"]\n…\n`,
  },
  'POST /games/:id/accept': { response: { ...gameDetail, move_count: 0, fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', pgn: '', current_turn: 'white', moves: [], white_time_remaining: 300, black_time_remaining: 300, last_move_at: null } },
  'POST /games/:id/decline': { response: { ...gameDetail, status: 'abandoned', abort_reason: 'declined', move_count: 0, fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', pgn: '', current_turn: 'white', moves: [], white_time_remaining: 300, black_time_remaining: 300, last_move_at: null } },
  'POST /games/:id/cancel': { response: { ...gameDetail, status: 'abandoned', abort_reason: 'cancelled', move_count: 0, fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', pgn: '', current_turn: 'white', moves: [], white_time_remaining: 300, black_time_remaining: 300, last_move_at: null } },
  'POST /games/:id/moves': {
    request: {
      move: { summary: 'Knight from g1 to f3', value: { from: 'g1', to: 'f3' } },
      promotion: { summary: 'A pawn reaching the last rank names its piece', value: { from: 'e7', to: 'e8', promotion: 'q' } },
    },
    response: {
      move: { from: 'g1', to: 'f3', san: 'Nf3', piece: 'n', captured: null, promotion: null, flags: 'n' },
      game: { status: 'active', fen: FEN, current_turn: 'black', move_count: 3, white_time_remaining: 301.2, black_time_remaining: 300, in_check: false, in_checkmate: false, in_stalemate: false, in_draw: false },
    },
  },
  'PATCH /games/:id/move': {
    request: { move: { summary: 'Knight from g1 to f3', value: { from: 'g1', to: 'f3' } } },
  },
  'POST /games/:id/resign': { response: { status: 'finished', result: '0-1', winner: 'black', termination: 'resignation', rating_changes: { white: -9, black: 9 } } },
  'POST /games/:id/draw': { response: { draw_offer: drawOffer } },
  'POST /games/:id/chat': {
    request: { player: { summary: 'To the opponent', value: { text: 'Good luck, have fun', room: 'player' } } },
    response: chatMessage('player', ada, 'Good luck, have fun'),
  },
  'GET /games/:id/chat': { response: [chatMessage('player', ada, 'Good luck, have fun'), chatMessage('player', bob, 'You too!')] },
  'POST /games/:id/chat/mute': { response: { game_id: GAME, muted: true } },
  'DELETE /games/:id/chat/mute': { response: { game_id: GAME, muted: false } },
  // After 1. e4 e5 2. Nf3 it is Black's turn: ada (White) takes back her last move.
  'POST /games/:id/takeback': {
    response: { takeback: { id: TAKEBACK, offered_by: ADA, plies: 1, status: 'pending', expires_at: '2026-11-23T18:03:11.412Z' } },
  },
  'POST /games/:id/takeback/:takeback_id': {
    request: {
      accept: { summary: 'Accept: the plies are taken back', value: { accept: true } },
      decline: { summary: 'Decline: the game goes on as it stands', value: { accept: false } },
    },
    response: {
      takeback: { id: TAKEBACK, offered_by: ADA, plies: 1, status: 'accepted', expires_at: '2026-11-23T18:03:11.412Z' },
      game: {
        status: 'active',
        fen: 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2',
        current_turn: 'white',
        move_count: 2,
        white_time_remaining: 296.4,
        black_time_remaining: 300,
      },
    },
  },
  'POST /games/:id/draw/:offer_id': {
    request: {
      accept: { summary: 'Accept the offer: the game is drawn', value: { accept: true } },
      decline: { summary: 'Decline it: the game goes on', value: { accept: false } },
    },
    response: ended,
  },
  'POST /games/:id/rematch': {
    response: { ...pendingGame, id: REMATCH, invite_url: `${BASE}/play/${REMATCH}`, rematch_of: GAME },
  },
  'POST /games/:id/abort': { response: { status: 'abandoned', result: null, winner: null, termination: null, rating_changes: { white: 0, black: 0 } } },
  'POST /games/:id/claim': {
    request: {
      win: { summary: 'The opponent left: claim the win', value: { result: 'win' } },
      draw: { summary: 'Or call it a draw', value: { result: 'draw' } },
    },
    response: { status: 'finished', result: '1-0', winner: 'white', termination: 'timeout', rating_changes: { white: 7, black: -7 } },
  },
  'GET /games/:id/analysis': {
    response: {
      game_id: GAME,
      analyzed_at: NOW,
      engine: 'Stockfish 19 Lite WASM',
      depth: 14,
      accuracy: { white: 91.4, black: 37.2 },
      mistakes: { white: 0, black: 0 },
      blunders: { white: 0, black: 1 },
      moves: [
        { move_number: 1, white: analysedMove('e4', 0.31, 'e4', 'best'), black: analysedMove('e5', 0.34, 'c5', 'excellent') },
        { move_number: 2, white: analysedMove('Nf3', 0.29, 'Nf3', 'best'), black: analysedMove('f6', 1.62, 'Nc6', 'mistake') },
      ],
      opening: { name: "Damiano Defense", eco: 'C40', moves: '1. e4 e5 2. Nf3 f6' },
    },
  },

  // ---- webhooks ----
  'POST /webhooks': {
    request: one('Games of mine that start and end', { url: webhook.url, events: webhook.events, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
    response: webhook,
  },
  'GET /webhooks': { response: [webhook] },
  'GET /webhooks/:id': { response: webhook },
  'DELETE /webhooks/:id': {},
  'GET /webhooks/:id/deliveries': { response: [delivery] },
  'POST /webhooks/:id/test': { response: { ...delivery, event: 'webhook.test', status: 'pending', attempts: 0, last_response_code: null, next_attempt_at: NOW, delivered_at: null } },

  // ---- personal access tokens ----
  'POST /account/tokens': {
    request: one('A bot that plays and reads its games', { description: 'my bot', scopes: ['games:read', 'games:play'], expires_at: null }),
    response: { ...personalToken, token: 'cst_4fJq0ZkR8wYbV2nLx7cT1uHs9mPdEa3gWi6oKyNr5Bt', created_at: NOW, last_used_at: null },
  },
  'GET /account/tokens': { response: [personalToken] },
  'DELETE /account/tokens/:id': {},

  // ---- friends ----
  'GET /friends': { response: [{ user: { ...bob, avatar_url: `${BASE}/v1/users/${BOB}/avatar.svg`, rating: 1587 }, status: 'friends', since: EARLIER, online: true }] },
  'POST /friends/:user_id': { response: { user: bob, status: 'outgoing', since: NOW } },
  'DELETE /friends/:user_id': {},

  // ---- clubs ----
  'POST /clubs': {
    request: one('An open club', { name: club.name, description: club.description, open: true }),
    response: { ...club, member_count: 1 },
  },
  'GET /clubs': { response: [club] },
  'GET /clubs/:id': { response: club },
  'DELETE /clubs/:id': {},
  'GET /clubs/:id/members': { response: [{ user: ada, role: 'owner', joined_at: '2026-11-02T12:00:00.000Z' }, { user: bob, role: 'member', joined_at: EARLIER }] },
  'POST /clubs/:id/join': { response: { ...club, owner: bob, role: 'member' } },
  'POST /clubs/:id/leave': {},
  'POST /clubs/:id/invites': { request: one('Invite bob', { user_id: BOB }), response: { club_id: CLUB, user: bob, invited_at: NOW } },

  // ---- puzzles ----
  'GET /puzzles': { response: [puzzle] },
  'GET /puzzles/daily': { response: { date: '2026-11-23', puzzle } },
  'GET /puzzles/next': { response: puzzle },
  'GET /puzzles/:id': { response: puzzle },
  'POST /puzzles/:id/attempt': {
    request: {
      solved: { summary: "The solution's move (a mate)", value: { moves: ['d6h2'], time_ms: 4200 } },
      wrong: { summary: 'Another legal move: not the solution', value: { moves: ['d6d2'] } },
    },
    response: { correct: true, solution: ['d6h2'], first_attempt: true, rating_change: 9, user_rating: 1752, puzzle_rating: 627 },
  },
  'POST /puzzles/:id/step': {
    request: {
      first: { summary: "The solver's first move", value: { moves: ['g2a8'] } },
      last: { summary: "The solver's moves so far, the last one mating", value: { moves: ['g2a8', 'a8b8'], time_ms: 9100 } },
    },
    response: {
      status: 'solved',
      correct: true,
      solution: ['g2a8', 'c7b8', 'a8b8'],
      first_attempt: true,
      rating_change: 11,
      user_rating: 1763,
      puzzle_rating: 1184,
    },
  },

  // ---- tournaments ----
  'POST /tournaments': {
    request: one('An hour of 5+3 blitz from 18:00 UTC', { name: arena.name, ...TC, rated: true, starts_at: arena.starts_at, duration_minutes: 60 }),
    response: { ...arena, status: 'upcoming', player_count: 0, joined: false, standings: [], standings_total: 0 },
  },
  'GET /tournaments': { response: [arena] },
  'GET /tournaments/:id': { response: { ...arena, standings } },
  'GET /tournaments/:id/standings': { response: standings },
  'POST /tournaments/:id/join': { response: { ...arena, standings } },
  'POST /tournaments/:id/withdraw': { response: { ...arena, player_count: 1, joined: false, standings: [standings[0], { ...standings[1], withdrawn: true }] } },
};

/** What the error examples say, by code; any other code reads as its name. */
export const ERROR_EXAMPLES: Partial<Record<string, { message: string; details?: Record<string, string[]>; retryAfter?: number }>> = {
  VALIDATION_ERROR: { message: 'Invalid request data', details: { initial_time: ['must be an integer number of seconds'] } },
  UNAUTHORIZED: { message: 'Missing or invalid access token' },
  INVALID_CREDENTIALS: { message: 'Invalid email or password' },
  TOO_MANY_ATTEMPTS: { message: 'Too many login attempts, try again later', retryAfter: 300 },
  RATE_LIMIT_EXCEEDED: { message: 'Too many requests', retryAfter: 42 },
  EXPORT_IN_PROGRESS: { message: 'One export at a time: wait for the running one to end', retryAfter: 1 },
  GAME_NOT_FOUND: { message: 'Game not found' },
  USER_NOT_FOUND: { message: 'User not found' },
  NOT_YOUR_TURN: { message: 'It is not your turn' },
  INVALID_MOVE: { message: 'Illegal move: e2e5' },
  GAME_NOT_ACTIVE: { message: 'The game is not active' },
  PLAYER_BUSY: { message: 'A player is already in a game' },
  NOT_IMPLEMENTED: { message: 'Login with Google is coming soon' },
  IDEMPOTENCY_KEY_REUSED: { message: 'This Idempotency-Key was used for another request' },
  MISSING_SCOPE: { message: 'This personal access token lacks the scope games:play', details: { scope: ['games:play'] } },
  SESSION_REQUIRED: { message: 'A personal access token cannot do this: sign in' },
  TOKEN_LIMIT: { message: 'At most 50 personal access tokens per user' },
};
