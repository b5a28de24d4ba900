-- Game chat (DESIGN 2.11): each game has a player room (its two players) and a spectator room
-- (anyone signed in). A message is durable once acknowledged; `n` numbers a user's messages in one
-- room of one game, so the cap of 30 is one unique index (two sends at once cannot both be the 30th).
CREATE TABLE game_chat_messages (
  id         uuid PRIMARY KEY,
  seq        bigint GENERATED ALWAYS AS IDENTITY,
  game_id    uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
  room       text NOT NULL CHECK (room IN ('player', 'spectator')),
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  n          integer NOT NULL CHECK (n BETWEEN 1 AND 30),
  text       text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 140),
  created_at timestamptz NOT NULL,
  UNIQUE (game_id, room, user_id, n)
);
-- A room's last 100, newest first.
CREATE INDEX game_chat_messages_room_idx ON game_chat_messages (game_id, room, seq DESC);

-- A player who muted the game's chat no longer receives the opponent's messages (live or read).
CREATE TABLE game_chat_mutes (
  game_id    uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
  user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (game_id, user_id)
);
