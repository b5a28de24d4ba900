-- A live game's row is updated by every move and by every lease renewal. PostgreSQL can make such
-- an update "heap-only" (HOT: the new version goes on the same page and no index gets an entry)
-- only when no indexed column changes and the page has room. Two columns stood in the way:
--
-- * updated_at (games_list_updated_idx): a move no longer writes it. A move writes last_move_at,
--   and every read reports updated_at as the later of the two (src/db/games.ts, toGameRecord);
--   a list sorted by updated_at orders active games by that later time (listGames).
-- * lease_expires_at (games_active_lease_idx): the index goes. Lapsed leases are looked up
--   among the active games (a few thousand at most, through the partial indexes on status =
--   'active') by the sweeper once a second.
--
-- Without them a move inserted into ten indexes (the primary key, the list, player and status
-- indexes of an active game); now it inserts into none. New pages keep a fifth of their space
-- free for the next versions of their rows.
DROP INDEX IF EXISTS games_active_lease_idx;
ALTER TABLE games SET (fillfactor = 80);
