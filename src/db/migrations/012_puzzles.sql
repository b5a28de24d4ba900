-- Puzzles (DESIGN 2.10): the Lichess puzzle database format. The rows come from imports: the
-- bundled sample (assets/puzzles) is loaded at boot right after the migrations, once, and an
-- operator loads the full dump with `npm run puzzles:import` (src/services/puzzleImport.ts).
CREATE TABLE puzzles (
  -- Lichess ids are case-sensitive: "C" compares them byte by byte, the same on every server.
  id               text COLLATE "C" PRIMARY KEY,
  -- After the setup move: the solver is to move.
  fen              text NOT NULL,
  last_move        text NOT NULL,
  -- Every move after the setup move: the solver's and the replies, in turn.
  solution         text[] NOT NULL CHECK (cardinality(solution) >= 1),
  -- Glicko-2, moved by first attempts here; an import that brings a new rating sets it afresh.
  rating           double precision NOT NULL,
  rating_deviation double precision NOT NULL,
  volatility       double precision NOT NULL DEFAULT 0.09,
  -- As the last import brought them (the daily puzzle is chosen on these).
  imported_rating  integer NOT NULL,
  imported_rd      integer NOT NULL,
  popularity       smallint NOT NULL CHECK (popularity BETWEEN -100 AND 100),
  imported_plays   integer NOT NULL CHECK (imported_plays >= 0),
  -- First attempts made here: `plays` = imported_plays + plays_here.
  plays_here       integer NOT NULL DEFAULT 0,
  themes           text[] NOT NULL,
  opening_tags     text[] NOT NULL,
  game_url         text NOT NULL
);
-- GET /puzzles/next walks this index both ways from the caller's rating; lists sort on it.
CREATE INDEX puzzles_rating_idx ON puzzles (rating, id);
CREATE INDEX puzzles_popularity_idx ON puzzles (popularity, id);
CREATE INDEX puzzles_themes_idx ON puzzles USING gin (themes);
-- The daily puzzle's candidates (DESIGN 2.10), walked in id order from a point the day picks.
CREATE INDEX puzzles_daily_candidates_idx ON puzzles (id) WHERE popularity >= 80 AND imported_rating BETWEEN 1500 AND 2300;

-- One row per user and puzzle: the first attempt (the rated one) and how many followed.
CREATE TABLE puzzle_attempts (
  user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  puzzle_id     text COLLATE "C" NOT NULL REFERENCES puzzles (id) ON DELETE CASCADE,
  correct       boolean NOT NULL,
  rating_change integer NOT NULL,
  time_ms       integer CHECK (time_ms BETWEEN 0 AND 86400000),
  attempts      integer NOT NULL DEFAULT 1,
  first_at      timestamptz NOT NULL,
  last_at       timestamptz NOT NULL,
  PRIMARY KEY (user_id, puzzle_id)
);

-- The puzzle of each UTC day, stored by the first request of the day (every node then reads it).
CREATE TABLE daily_puzzles (
  day       date PRIMARY KEY,
  puzzle_id text COLLATE "C" NOT NULL REFERENCES puzzles (id)
);
CREATE INDEX daily_puzzles_puzzle_idx ON daily_puzzles (puzzle_id);

-- Imports recorded by what they read: the bundled sample is loaded again only when it changes.
CREATE TABLE puzzle_imports (
  source      text PRIMARY KEY,
  sha256      text NOT NULL,
  rows        integer NOT NULL,
  imported_at timestamptz NOT NULL DEFAULT now()
);

-- A user's puzzle rating is a Glicko-2 rating like the game categories' (1500 / 500 / 0.09 until
-- the first rated attempt), so it lives beside them.
ALTER TABLE user_ratings DROP CONSTRAINT user_ratings_category_check;
ALTER TABLE user_ratings ADD CONSTRAINT user_ratings_category_check
  CHECK (category IN ('bullet', 'blitz', 'rapid', 'classical', 'puzzle'));
