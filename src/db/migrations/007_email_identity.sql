-- An email is stored in its one normalised form (src/auth/rules.ts normalizeEmail) and compared
-- for equality only: lower() follows the server's locale and disagreed with the service on
-- letters such as İ, so a lookup and the login throttle could see two different addresses.
-- Stored addresses were already lower-case ASCII (signup lower-cased them and accepts only ASCII).
UPDATE users SET email = lower(email) WHERE email <> lower(email) AND email ~ '^[\x20-\x7e]*$';
DROP INDEX users_email_key;
CREATE UNIQUE INDEX users_email_key ON users (email);
