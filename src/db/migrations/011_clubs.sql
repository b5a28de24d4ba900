-- Clubs (DESIGN 2.10): clubs, their members (the owner included, as role owner) and pending
-- invitations. Times are stamped by the service's clock, like every deadline it judges.
CREATE TABLE clubs (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- The service normalises names (trimmed, single spaces); the check keeps the stored form honest.
  name         text NOT NULL CHECK (name ~ '^[A-Za-z0-9_-]([A-Za-z0-9_ -]*[A-Za-z0-9_-])?$' AND name NOT LIKE '%  %'
                            AND char_length(name) BETWEEN 3 AND 40),
  description  text CHECK (char_length(description) <= 2000),
  open         boolean NOT NULL DEFAULT true,
  owner_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  -- Kept in the transaction that adds or removes a membership, under the club row's lock.
  member_count integer NOT NULL DEFAULT 1 CHECK (member_count >= 1),
  created_at   timestamptz NOT NULL
);
-- Names are ASCII, so lower() folds case exactly whatever the server's locale. The index also
-- serves `sort=name` (which sorts case-insensitively).
CREATE UNIQUE INDEX clubs_name_key ON clubs (lower(name));
CREATE INDEX clubs_owner_idx ON clubs (owner_id);
CREATE INDEX clubs_members_idx ON clubs (member_count DESC, lower(name));
CREATE INDEX clubs_created_idx ON clubs (created_at DESC, id);

CREATE TABLE club_members (
  club_id   uuid NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
  user_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role      text NOT NULL CHECK (role IN ('owner', 'member')),
  joined_at timestamptz NOT NULL,
  PRIMARY KEY (club_id, user_id)
);
CREATE UNIQUE INDEX club_members_one_owner ON club_members (club_id) WHERE role = 'owner';
CREATE INDEX club_members_list_idx ON club_members (club_id, joined_at, user_id);
CREATE INDEX club_members_user_idx ON club_members (user_id);

-- At most one per club and user; an invitation older than 30 days counts as absent (the service
-- judges that with its clock) and is replaced by the next invitation.
CREATE TABLE club_invitations (
  club_id    uuid NOT NULL REFERENCES clubs (id) ON DELETE CASCADE,
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  invited_by uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  invited_at timestamptz NOT NULL,
  PRIMARY KEY (club_id, user_id)
);
CREATE INDEX club_invitations_user_idx ON club_invitations (user_id);

-- `q` matches a substring of the name (ILIKE '%…%'): a trigram index when pg_trgm is there
-- (003_game_search.sql creates the extension when it can), else a scan of clubs.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    EXECUTE 'CREATE INDEX IF NOT EXISTS clubs_name_trgm_idx ON clubs USING gin (name gin_trgm_ops)';
  END IF;
END
$$;
