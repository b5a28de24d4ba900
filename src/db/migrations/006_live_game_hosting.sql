-- The last moment a node is known to have hosted a live game (lease renewals, moves, release),
-- in the hosting node's clock: a node taking the game over charges the turn in progress only up
-- to then, and moves the first-move deadline on by the time nobody hosted the game.
ALTER TABLE games ADD COLUMN hosted_at timestamptz;

-- The key of the command that made a move (REST Idempotency-Key, gateway request id, socket
-- command id), so a command retried after its node died is recognised by the next owner.
ALTER TABLE game_moves ADD COLUMN command_key text;
