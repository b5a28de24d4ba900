-- Games, their moves, draw offers and the transactional outbox of game events.
CREATE TABLE games (
  id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  kind               text NOT NULL CHECK (kind IN ('challenge', 'matchmaking')),
  created_by         uuid NOT NULL REFERENCES users (id),
  -- A challenge seats both players at creation; a seek seats only its creator until paired.
  white_id           uuid REFERENCES users (id),
  black_id           uuid REFERENCES users (id),
  color_preference   text NOT NULL DEFAULT 'random' CHECK (color_preference IN ('white', 'black', 'random')),
  status             text NOT NULL CHECK (status IN ('pending', 'active', 'finished', 'abandoned')),
  result             text CHECK (result IN ('1-0', '0-1', '1/2-1/2')),
  winner             text CHECK (winner IN ('white', 'black')),
  termination        text,
  abort_reason       text CHECK (abort_reason IN ('expired', 'declined', 'cancelled', 'no_first_move')),
  time_control       text NOT NULL CHECK (time_control IN ('bullet', 'blitz', 'rapid', 'classical')),
  initial_time       integer NOT NULL,
  increment          integer NOT NULL,
  rated              boolean NOT NULL,
  fen                text NOT NULL DEFAULT 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
  pgn                text NOT NULL DEFAULT '',
  move_count         integer NOT NULL DEFAULT 0,
  -- Clocks in ms at the start of the current turn; turn_started_at is when it began.
  white_time_ms      integer NOT NULL,
  black_time_ms      integer NOT NULL,
  clock_running      boolean NOT NULL DEFAULT false,
  turn_started_at    timestamptz,
  -- The deadline of the first move of the side to move (no_first_move abort), while it applies.
  first_move_deadline timestamptz,
  white_rating       integer,
  black_rating       integer,
  white_rating_change integer,
  black_rating_change integer,
  -- Lag-compensation quotas and other room state that must survive rehydration.
  room_state         jsonb NOT NULL DEFAULT '{}'::jsonb,
  event_seq          integer NOT NULL DEFAULT 0,
  -- Ownership lease of the live room (DESIGN 1: fenced ownership).
  host               text,
  host_epoch         bigint NOT NULL DEFAULT 0,
  lease_expires_at   timestamptz,
  expires_at         timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  started_at         timestamptz,
  finished_at        timestamptz,
  last_move_at       timestamptz
);
-- Lists never show pending games; every list query filters on status <> 'pending'.
CREATE INDEX games_list_created_idx ON games (created_at DESC, id) WHERE status <> 'pending';
CREATE INDEX games_list_updated_idx ON games (updated_at DESC, id) WHERE status <> 'pending';
CREATE INDEX games_status_created_idx ON games (status, created_at DESC) WHERE status <> 'pending';
CREATE INDEX games_tc_created_idx ON games (time_control, created_at DESC) WHERE status <> 'pending';
CREATE INDEX games_result_created_idx ON games (result, created_at DESC) WHERE result IS NOT NULL;
CREATE INDEX games_white_idx ON games (white_id, created_at DESC);
CREATE INDEX games_black_idx ON games (black_id, created_at DESC);
-- The sweeper's work: pending games to expire, live games whose room is gone.
CREATE INDEX games_pending_expiry_idx ON games (expires_at) WHERE status = 'pending';
CREATE INDEX games_active_lease_idx ON games (lease_expires_at) WHERE status = 'active';

CREATE TABLE game_moves (
  game_id    uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
  ply        integer NOT NULL,
  san        text NOT NULL,
  uci        text NOT NULL,
  -- The mover's clock right after the move (increment included), ms.
  clock_ms   integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (game_id, ply)
);

CREATE TABLE draw_offers (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  game_id    uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
  offered_by uuid NOT NULL REFERENCES users (id),
  ply        integer NOT NULL,
  status     text NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'expired')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  answered_at timestamptz
);
CREATE INDEX draw_offers_game_idx ON draw_offers (game_id, created_at DESC);
CREATE UNIQUE INDEX draw_offers_one_pending ON draw_offers (game_id) WHERE status = 'pending';

-- Transactional outbox: events written with the state change that caused them.
CREATE TABLE outbox (
  id         bigserial PRIMARY KEY,
  topic      text NOT NULL,
  game_id    uuid,
  user_ids   uuid[] NOT NULL DEFAULT '{}',
  payload    jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz
);
CREATE INDEX outbox_unprocessed_idx ON outbox (id) WHERE processed_at IS NULL;
