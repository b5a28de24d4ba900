-- Issue 37: a new email address takes effect only once it is confirmed. Until then the account
-- keeps its address and the change waits here, as a token mailed to the new address that carries it.
ALTER TABLE user_tokens ADD COLUMN email text;
ALTER TABLE user_tokens DROP CONSTRAINT user_tokens_purpose_check;
ALTER TABLE user_tokens ADD CONSTRAINT user_tokens_purpose_check CHECK (purpose IN ('reset', 'verify', 'email_change'));
ALTER TABLE user_tokens ADD CONSTRAINT user_tokens_email_check CHECK ((purpose = 'email_change') = (email IS NOT NULL));
