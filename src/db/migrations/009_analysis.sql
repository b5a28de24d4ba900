-- Post-game analysis (DESIGN 2.5): one row per finished game, both the durable job and its result.
-- A worker claims a row (FOR UPDATE SKIP LOCKED) until `locked_until`, renewing it as it goes; a
-- worker that dies stops renewing and the row is claimed again after that time. `attempts` counts
-- claims and fences a worker whose claim was taken over: its writes name the attempt it holds.
CREATE TABLE game_analyses (
  game_id        uuid PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
  status         text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done')),
  attempts       integer NOT NULL DEFAULT 0,
  -- Engine failures in a row: each one waits longer before the next try.
  failures       integer NOT NULL DEFAULT 0,
  available_at   timestamptz NOT NULL DEFAULT now(),
  locked_by      text,
  locked_until   timestamptz,
  -- Positions of the game (start included) and how many have been searched. A retried job goes
  -- on from `evals`, the engine's findings so far (one per position, in order), at `depth`.
  progress_total integer NOT NULL,
  progress_done  integer NOT NULL DEFAULT 0,
  evals          jsonb NOT NULL DEFAULT '[]',
  depth          integer,
  engine         text,
  result         jsonb,
  last_error     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  analyzed_at    timestamptz
);
CREATE INDEX game_analyses_due_idx ON game_analyses (available_at) WHERE status <> 'done';

-- Games that finished before analysis existed are analysed too.
INSERT INTO game_analyses (game_id, progress_total)
SELECT id, move_count + 1 FROM games WHERE status = 'finished';
