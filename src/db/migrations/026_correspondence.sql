-- Correspondence games (DESIGN 2.11): `days_per_move` days for each move, no clock between moves.
-- Such a game has no room while nobody is connected, so its deadline must be found in PostgreSQL:
-- `move_deadline` is when the side to move's period ends (turn start + days_per_move days),
-- written with each of its moves. The sweeper looks up the deadlines about to pass through the
-- partial index below, one query a second for every node, however many games wait. A clocked
-- game never sets these columns, so its row updates stay heap-only (migration 016).
ALTER TABLE games DROP CONSTRAINT games_time_control_check;
ALTER TABLE games ADD CONSTRAINT games_time_control_check
  CHECK (time_control IN ('bullet', 'blitz', 'rapid', 'classical', 'correspondence'));
ALTER TABLE games ADD COLUMN days_per_move integer CHECK (days_per_move IN (1, 2, 3, 5, 7, 10, 14));
ALTER TABLE games ADD CONSTRAINT games_correspondence_check CHECK ((time_control = 'correspondence') = (days_per_move IS NOT NULL));
ALTER TABLE games ADD COLUMN move_deadline timestamptz;
CREATE INDEX games_move_deadline_idx ON games (move_deadline) WHERE status = 'active' AND move_deadline IS NOT NULL;

-- Correspondence is a rating category of its own.
ALTER TABLE user_ratings DROP CONSTRAINT user_ratings_category_check;
ALTER TABLE user_ratings ADD CONSTRAINT user_ratings_category_check
  CHECK (category IN ('bullet', 'blitz', 'rapid', 'classical', 'correspondence', 'puzzle'));
