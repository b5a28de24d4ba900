-- An attempt's error used to be the sender's own message, which can name what our resolver
-- answered and the internal address we tried. Stored errors become the few words an endpoint's
-- owner is shown now (src/workers/webhookSender.ts SEND_ERRORS); the reasons we write ourselves
-- (an endpoint disabled, an event not queued) stay as they are.
CREATE FUNCTION pg_temp.owner_error(e text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN e IS NULL
      OR e IN ('target address not allowed', 'host not found', 'connection refused', 'connection reset', 'timed out', 'TLS error',
               'request failed', 'the receiver answered 410 Gone', 'every retry failed')
      OR e LIKE 'not queued: %' THEN e
    WHEN e LIKE '% is not allowed%' OR e = 'only https targets are allowed' OR e = 'invalid url' THEN 'target address not allowed'
    WHEN e ~ 'ENOTFOUND|EAI_AGAIN|EAI_NODATA' THEN 'host not found'
    WHEN e ~ 'ECONNREFUSED' THEN 'connection refused'
    WHEN e ~ 'ECONNRESET|EPIPE|socket hang up' THEN 'connection reset'
    WHEN e ~ 'no answer within|ETIMEDOUT' THEN 'timed out'
    WHEN e ~* 'certificate|SSL|TLS' THEN 'TLS error'
    ELSE 'request failed'
  END
$$;
UPDATE webhook_deliveries SET last_error = pg_temp.owner_error(last_error) WHERE last_error IS DISTINCT FROM pg_temp.owner_error(last_error);
UPDATE webhook_attempts SET error = pg_temp.owner_error(error) WHERE error IS DISTINCT FROM pg_temp.owner_error(error);
DROP FUNCTION pg_temp.owner_error(text);
