-- GET /games?search= matches a username substring (ILIKE '%…%'), which a b-tree cannot serve.
-- A trigram index can; pg_trgm ships with PostgreSQL's contrib and is a trusted extension, but a
-- server without it (or without the right to create it) still works, with a scan of users.
DO $$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pg_trgm unavailable (%): username search scans users', SQLERRM;
  END;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    EXECUTE 'CREATE INDEX IF NOT EXISTS users_username_trgm_idx ON users USING gin (username gin_trgm_ops)';
  END IF;
END
$$;
