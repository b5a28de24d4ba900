-- Takebacks (DESIGN 2.11). A proposal is a row of takeback_offers, closed as a draw offer is
-- (accepted, declined, or expired: lapsed by a move, its deadline or the game's end).
--
-- An accepted takeback rewrites the move log in one transaction fenced by the lease epoch
-- (src/db/liveGames.ts takeBack): the taken-back rows leave game_moves for taken_back_moves,
-- marked by the takeback that undid them, and the games row's snapshot is rewritten as the game
-- now stands. game_moves thus holds only the moves on the board, keyed by ply as before: the
-- moves played after a takeback reuse the plies it freed, and every reader of game_moves (the
-- live tail fold, rehydration, the move writer, PGN export, analysis, webhook feeds, lists)
-- needs no filter to ignore what was taken back.
CREATE TABLE takeback_offers (
  id          uuid PRIMARY KEY,
  game_id     uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
  offered_by  uuid NOT NULL REFERENCES users (id),
  -- The moves on the board when it was proposed, and how many of them it takes back.
  ply         integer NOT NULL,
  plies       smallint NOT NULL CHECK (plies IN (1, 2)),
  status      text NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'expired')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  answered_at timestamptz
);
CREATE INDEX takeback_offers_game_idx ON takeback_offers (game_id, created_at);
CREATE UNIQUE INDEX takeback_offers_one_pending ON takeback_offers (game_id) WHERE status = 'pending';

CREATE TABLE taken_back_moves (
  takeback_id uuid NOT NULL REFERENCES takeback_offers (id) ON DELETE CASCADE,
  game_id     uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
  ply         integer NOT NULL,
  san         text NOT NULL,
  uci         text NOT NULL,
  clock_ms    integer NOT NULL,
  command_key text,
  fen         text,
  white_ms    integer,
  black_ms    integer,
  event_seq   integer,
  played_at   timestamptz,
  created_at  timestamptz NOT NULL,
  taken_back_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (takeback_id, ply)
);
CREATE INDEX taken_back_moves_game_idx ON taken_back_moves (game_id, ply);
