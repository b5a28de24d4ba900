-- Arena tournaments (DESIGN 2.10): the tournament, its players' standings and its games.
-- Standings are rows kept from the games' results (each game counted once, in the transaction
-- that marks it counted); the tournament actor's memory is only a cache of them.
CREATE TABLE tournaments (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name             text NOT NULL CHECK (char_length(name) BETWEEN 3 AND 60),
  creator_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  time_control     text NOT NULL CHECK (time_control IN ('bullet', 'blitz', 'rapid', 'classical')),
  initial_time     integer NOT NULL,
  increment        integer NOT NULL,
  rated            boolean NOT NULL,
  starts_at        timestamptz NOT NULL,
  ends_at          timestamptz NOT NULL CHECK (ends_at > starts_at),
  max_players      integer CHECK (max_players BETWEEN 2 AND 10000),
  status           text NOT NULL DEFAULT 'upcoming' CHECK (status IN ('upcoming', 'running', 'finished')),
  -- Joined and not withdrawn; kept by every join and withdrawal under the row's lock.
  player_count     integer NOT NULL DEFAULT 0 CHECK (player_count >= 0),
  created_at       timestamptz NOT NULL,
  started_at       timestamptz,
  finished_at      timestamptz,
  -- The actor's lease, named as the games' are (DESIGN 1: fenced ownership): every write of the
  -- actor is fenced by host_epoch, and tools that expire a dead node's leases find it by these.
  host             text,
  host_epoch       bigint NOT NULL DEFAULT 0,
  lease_expires_at timestamptz
);
CREATE INDEX tournaments_upcoming_idx ON tournaments (starts_at, id) WHERE status = 'upcoming';
CREATE INDEX tournaments_running_idx ON tournaments (starts_at, id) WHERE status = 'running';
CREATE INDEX tournaments_finished_idx ON tournaments (ends_at DESC, id) WHERE status = 'finished';
-- The sweeper's look for running tournaments nobody hosts.
CREATE INDEX tournaments_lease_idx ON tournaments (lease_expires_at) WHERE status = 'running';

CREATE TABLE tournament_players (
  tournament_id       uuid NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
  user_id             uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  joined_at           timestamptz NOT NULL,
  withdrawn           boolean NOT NULL DEFAULT false,
  score               integer NOT NULL DEFAULT 0,
  games               integer NOT NULL DEFAULT 0,
  wins                integer NOT NULL DEFAULT 0,
  draws               integer NOT NULL DEFAULT 0,
  losses              integer NOT NULL DEFAULT 0,
  -- Consecutive wins up to now: two or more and the player is on fire.
  streak              integer NOT NULL DEFAULT 0,
  -- Sum of the opponents' ratings at each counted game's start, for `performance`.
  opponent_rating_sum bigint NOT NULL DEFAULT 0,
  performance         integer,
  -- Pairing memory: the last opponent (no immediate rematch), whites minus blacks (colours
  -- alternate), and since when the player waits (the one who waited least sits out an odd round).
  last_opponent_id    uuid,
  color_balance       integer NOT NULL DEFAULT 0,
  waiting_since       timestamptz NOT NULL,
  PRIMARY KEY (tournament_id, user_id)
);
-- Standings order: score, then performance (none last), then earlier join.
CREATE INDEX tournament_players_rank_idx
  ON tournament_players (tournament_id, score DESC, performance DESC NULLS LAST, joined_at, user_id);
CREATE INDEX tournament_players_user_idx ON tournament_players (user_id);

-- Every game the actor paired, and whether its result is in the standings yet. A game that
-- ended while no actor ran (its node died) is still uncounted here and is counted by the next.
CREATE TABLE tournament_games (
  game_id       uuid PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
  tournament_id uuid NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
  white_id      uuid NOT NULL,
  black_id      uuid NOT NULL,
  paired_at     timestamptz NOT NULL,
  counted_at    timestamptz,
  white_points  integer,
  black_points  integer
);
CREATE INDEX tournament_games_uncounted_idx ON tournament_games (tournament_id) WHERE counted_at IS NULL;
CREATE INDEX tournament_games_tournament_idx ON tournament_games (tournament_id, paired_at);

-- Tournament games are ordinary games of a third kind, marked with their tournament.
ALTER TABLE games DROP CONSTRAINT games_kind_check;
ALTER TABLE games ADD CONSTRAINT games_kind_check CHECK (kind IN ('challenge', 'matchmaking', 'tournament'));
ALTER TABLE games ADD COLUMN tournament_id uuid REFERENCES tournaments (id) ON DELETE SET NULL;
CREATE INDEX games_tournament_idx ON games (tournament_id, created_at DESC) WHERE tournament_id IS NOT NULL;

-- "Is this player in a game right now?" is asked for every waiting player of an arena on each
-- pairing round (and by seeks and challenges): active games are few, so these stay small.
CREATE INDEX games_active_white_idx ON games (white_id) WHERE status = 'active';
CREATE INDEX games_active_black_idx ON games (black_id) WHERE status = 'active';
