-- DESIGN 2.11. A player may abort a game before both sides have moved (abort_reason 'aborted'),
-- and ask for a rematch of a finished game: the rematch is a challenge that points at the game it
-- follows. One rematch per finished game: the unique index settles two crossing asks (the row
-- lock on the finished game orders them first; the index is the last word).
ALTER TABLE games DROP CONSTRAINT games_abort_reason_check;
ALTER TABLE games ADD CONSTRAINT games_abort_reason_check
  CHECK (abort_reason IN ('expired', 'declined', 'cancelled', 'no_first_move', 'aborted'));
ALTER TABLE games ADD COLUMN rematch_of uuid REFERENCES games (id) ON DELETE SET NULL;
CREATE UNIQUE INDEX games_rematch_of_idx ON games (rematch_of) WHERE rematch_of IS NOT NULL;
