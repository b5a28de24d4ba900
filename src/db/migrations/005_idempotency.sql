-- Idempotency-Key (DESIGN 2.1): the first answer to a POST, per (user, key), for 24 h.

-- A row is claimed before the handler acts (`status` NULL: in progress) and completed with the
-- answer once it is sent. `claim` names the attempt that owns the row, so an attempt that was
-- taken over (it ran too long) cannot overwrite or delete its successor's row.
-- `created_at` comes from the service's clock, not the database's.
CREATE TABLE idempotency_keys (
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key          text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  request_hash text NOT NULL,
  claim        uuid NOT NULL,
  created_at   timestamptz NOT NULL,
  status       smallint,
  headers      jsonb,
  body         bytea,
  PRIMARY KEY (user_id, key),
  CHECK ((status IS NULL) = (body IS NULL) AND (status IS NULL) = (headers IS NULL))
);
-- The sweeper deletes expired keys in bulk, oldest first.
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
