-- GET /games reports the exact number of games matching (pagination.total). Counting them on a
-- million games reads the whole index (0.6 s here), so the counts a list without a player or a
-- search needs are kept: one number per (status, time_control, result) of the listed (not
-- pending) games. A trigger records each change as a delta row (an insert: concurrent games
-- finishing never wait on one counter row, nor deadlock over two), the sweeper folds the
-- deltas into the totals, and a count reads both: a few dozen rows at most.
CREATE TABLE game_list_counts (
  status       text NOT NULL,
  time_control text NOT NULL,
  result       text NOT NULL, -- '' for none (active and abandoned games)
  n            bigint NOT NULL,
  PRIMARY KEY (status, time_control, result)
);
CREATE TABLE game_list_count_deltas (
  id           bigserial PRIMARY KEY,
  status       text NOT NULL,
  time_control text NOT NULL,
  result       text NOT NULL,
  n            integer NOT NULL
);

CREATE FUNCTION games_list_count_delta() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.status <> 'pending' THEN
    INSERT INTO game_list_count_deltas (status, time_control, result, n)
    VALUES (OLD.status, OLD.time_control, COALESCE(OLD.result, ''), -1);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.status <> 'pending' THEN
    INSERT INTO game_list_count_deltas (status, time_control, result, n)
    VALUES (NEW.status, NEW.time_control, COALESCE(NEW.result, ''), 1);
  END IF;
  RETURN NULL;
END
$$;

-- The triggers first: they lock games against writes until this migration commits, so the
-- totals below count exactly the rows committed before, and every later change is a delta.
CREATE TRIGGER games_list_count_rows AFTER INSERT OR DELETE ON games
  FOR EACH ROW EXECUTE FUNCTION games_list_count_delta();
-- A move rewrites the row without changing these: the WHEN keeps the function off that path.
CREATE TRIGGER games_list_count_changes AFTER UPDATE OF status, time_control, result ON games
  FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.time_control IS DISTINCT FROM NEW.time_control
        OR OLD.result IS DISTINCT FROM NEW.result)
  EXECUTE FUNCTION games_list_count_delta();

INSERT INTO game_list_counts (status, time_control, result, n)
SELECT status, time_control, COALESCE(result, ''), count(*) FROM games WHERE status <> 'pending' GROUP BY 1, 2, 3;

-- The list indexes hold what the filters look at, so the page is found in the index alone and
-- only its 20 rows are read from the table (src/db/games.ts listGames), however many rows a
-- filter or an offset skips; and a list with a player or a search is counted in them without a
-- heap visit per game. They replace the indexes of migration 002 on the same keys: a move
-- (which rewrites the row) still updates as many indexes as before.
DROP INDEX games_list_created_idx;
DROP INDEX games_list_updated_idx;
CREATE INDEX games_list_created_idx ON games (created_at DESC, id)
  INCLUDE (status, time_control, result, white_id, black_id) WHERE status <> 'pending';
CREATE INDEX games_list_updated_idx ON games (updated_at DESC, id)
  INCLUDE (status, time_control, result, white_id, black_id) WHERE status <> 'pending';
-- A player's games (lists, counts, "is this player busy?"), pending ones included.
DROP INDEX games_white_idx;
DROP INDEX games_black_idx;
CREATE INDEX games_white_idx ON games (white_id, created_at DESC, id) INCLUDE (black_id, status, time_control, result);
CREATE INDEX games_black_idx ON games (black_id, created_at DESC, id) INCLUDE (white_id, status, time_control, result);
