-- DESIGN 2.13: a bot account (Lichess's title BOT), made so for good by POST /api/bot/account/upgrade.
ALTER TABLE users ADD COLUMN bot boolean NOT NULL DEFAULT false;
