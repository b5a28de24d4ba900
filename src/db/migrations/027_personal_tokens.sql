-- Personal access tokens (DESIGN 2.12): long-lived bearer tokens for scripts and bots, limited to
-- scopes. Only the SHA-256 of a token is stored; the token itself is shown once, at creation.
-- `last_used_at` is kept to the minute (written at most once a minute per token and node).
CREATE TABLE personal_tokens (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  token_hash   text NOT NULL UNIQUE,
  description  text NOT NULL,
  scopes       text[] NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz,
  last_used_at timestamptz
);
CREATE INDEX personal_tokens_user_idx ON personal_tokens (user_id, created_at DESC);
