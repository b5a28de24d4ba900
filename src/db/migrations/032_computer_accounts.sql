-- DESIGN 2.14, the computer: one bot account per level, stockfish-1 … stockfish-8. A hyphen is
-- outside signup's username alphabet (letters, digits, underscores), so no person can take these
-- names; the password hash is no bcrypt hash (nothing matches it), and the .invalid address
-- (RFC 2606) reaches nobody. ON CONFLICT: made once however the migration comes to run.
INSERT INTO users (email, username, password_hash, full_name, bot, email_verified)
SELECT 'stockfish-' || level || '@computer.invalid', 'stockfish-' || level, '!', 'Stockfish level ' || level, true, true
FROM generate_series(1, 8) AS level
ON CONFLICT DO NOTHING;
