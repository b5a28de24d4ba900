-- Friends (DESIGN 2.10): one row per pair of users, whatever the order they are named in, so two
-- people cannot hold two relations (a request each way is an acceptance, not a second row).
CREATE TABLE friendships (
  user_low     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  user_high    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  status       text NOT NULL CHECK (status IN ('pending', 'friends')),
  -- Who asked: for a pending row, the requester.
  requested_by uuid NOT NULL,
  -- When the relation reached its current status.
  since        timestamptz NOT NULL,
  PRIMARY KEY (user_low, user_high),
  CHECK (user_low < user_high),
  CHECK (requested_by IN (user_low, user_high))
);
CREATE INDEX friendships_high_idx ON friendships (user_high, since DESC);
CREATE INDEX friendships_requests_idx ON friendships (requested_by) WHERE status = 'pending';

-- `online` in friend lists: an authenticated request or a live socket within the last 5 minutes.
ALTER TABLE users ADD COLUMN last_seen_at timestamptz;
