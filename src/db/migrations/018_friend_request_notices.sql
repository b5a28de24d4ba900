-- When a user was last told of another's friend request (webhook and user channel): a request
-- withdrawn and sent again, or declined and sent again, within FRIEND_REQUEST_COOLDOWN_SECONDS is
-- made but not told again, so nobody can ping someone without end. One row per asker and asked.
CREATE TABLE friend_request_notices (
  from_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  to_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  notified_at timestamptz NOT NULL,
  PRIMARY KEY (from_id, to_id)
);
CREATE INDEX friend_request_notices_to_idx ON friend_request_notices (to_id);
