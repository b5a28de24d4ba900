-- Accounts, sessions and one-time tokens.
CREATE TABLE users (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email          text NOT NULL,
  username       text NOT NULL,
  password_hash  text NOT NULL,
  full_name      text,
  avatar_url     text,
  country        text,
  email_verified boolean NOT NULL DEFAULT false,
  games_played   integer NOT NULL DEFAULT 0,
  wins           integer NOT NULL DEFAULT 0,
  losses         integer NOT NULL DEFAULT 0,
  draws          integer NOT NULL DEFAULT 0,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
-- Both are unique case-insensitively; text_pattern_ops serves the username prefix search too.
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
CREATE UNIQUE INDEX users_username_key ON users (lower(username) text_pattern_ops);

-- Glicko-2 state per rating category; a missing row means the defaults (1500 / 500 / 0.09).
CREATE TABLE user_ratings (
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  category   text NOT NULL CHECK (category IN ('bullet', 'blitz', 'rapid', 'classical')),
  rating     double precision NOT NULL,
  rd         double precision NOT NULL,
  volatility double precision NOT NULL,
  games      integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, category)
);

CREATE TABLE sessions (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at     timestamptz NOT NULL DEFAULT now(),
  revoked_at     timestamptz,
  revoked_reason text
);
CREATE INDEX sessions_user_idx ON sessions (user_id) WHERE revoked_at IS NULL;

-- Refresh tokens are stored as SHA-256 hashes; each is single use.
CREATE TABLE refresh_tokens (
  token_hash text PRIMARY KEY,
  session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  issued_at  timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id);

-- Password-reset and email-verification tokens, hashed, single use.
CREATE TABLE user_tokens (
  token_hash text PRIMARY KEY,
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose    text NOT NULL CHECK (purpose IN ('reset', 'verify')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz
);
CREATE INDEX user_tokens_user_idx ON user_tokens (user_id, purpose);
