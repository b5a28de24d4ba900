-- The export of a player's games (DESIGN 2.12) reads their finished games newest first, in
-- batches after the last (finished_at, id) sent: one range scan per colour, merged, whatever the
-- number of games. The list indexes (white_id/black_id, created_at) order by the wrong time.
CREATE INDEX games_white_export_idx ON games (white_id, finished_at DESC, id DESC) WHERE status = 'finished';
CREATE INDEX games_black_export_idx ON games (black_id, finished_at DESC, id DESC) WHERE status = 'finished';
