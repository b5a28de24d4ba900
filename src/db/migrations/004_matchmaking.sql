-- Matchmaking: a seek is a pending game of kind 'matchmaking' with only its creator seated.

-- One live pool actor per (time control, initial, increment, rated) across the cluster: a lease,
-- like a live game's.
CREATE TABLE seek_pools (
  pool             text PRIMARY KEY,
  host             text,
  host_epoch       bigint NOT NULL DEFAULT 0,
  lease_expires_at timestamptz
);

-- Two waiting seeks paired with each other become one game (the older seek's); the younger
-- seek's id keeps leading its owner to that game.
CREATE TABLE seek_redirects (
  seek_id    uuid PRIMARY KEY,
  game_id    uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX games_open_seeks_idx ON games (time_control, initial_time, increment, rated, created_at)
  WHERE status = 'pending' AND kind = 'matchmaking';
CREATE INDEX games_seeker_idx ON games (created_by) WHERE status = 'pending' AND kind = 'matchmaking';
