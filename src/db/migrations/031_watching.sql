-- DESIGN 2.14, watching: the live games by average rating (GET /games/live) and the featured game
-- of the TV (GET /tv, /tv/feed, the realtime channel `tv`).
--
-- The list reads this index from its top, as many rows as asked: its cost does not grow with the
-- number of games. Partial on what the list shows (active games with a clock: a correspondence
-- game lasts days and is no live game); none of its columns changes with a move, so a move's
-- update of the row stays heap-only (migration 016). A game's ratings are written as it starts;
-- the coalesce (the default rating) only covers a row without them.
CREATE INDEX games_live_rating_idx ON games ((coalesce(white_rating, 1500) + coalesce(black_rating, 1500)) DESC, id)
  WHERE status = 'active' AND time_control <> 'correspondence';

-- The TV's featured game, the same on every node: the game a node features is read here, and a
-- node that finds it ended puts the next one in its place only if nobody did first (a compare and
-- set on game_id), so all nodes agree on one game and keep it until it ends. One row per channel
-- (`best`: the highest average rating; room for Lichess's other channels).
CREATE TABLE tv_channels (
  channel    text PRIMARY KEY,
  game_id    uuid REFERENCES games (id) ON DELETE SET NULL,
  since      timestamptz NOT NULL DEFAULT now()
);
INSERT INTO tv_channels (channel) VALUES ('best');
