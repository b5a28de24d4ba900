-- A move's durable write is one small append to game_moves (src/db/moveWriter.ts): the games
-- row's snapshot (fen, pgn, move_count, clocks, event_seq) is rewritten only every few plies
-- (the first two plies, every SNAPSHOT_EVERY-th, and a move that lapses a draw offer). Every
-- read of an active game folds the moves after the snapshot's move_count into it
-- (src/db/liveTail.ts), so each move row carries what the snapshot would have said after it:
-- the position, both clocks, the game's event number and the node's time of the move (the
-- start of the next turn). Rows written before this migration leave them null; their games'
-- snapshots were written by every move, so no read folds them.
ALTER TABLE game_moves
  ADD COLUMN fen text,
  ADD COLUMN white_ms integer,
  ADD COLUMN black_ms integer,
  ADD COLUMN event_seq integer,
  ADD COLUMN played_at timestamptz;
