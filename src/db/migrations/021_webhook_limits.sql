-- Webhook limits: the pending deliveries of an endpoint are counted at every fan-out (its
-- backlog cap), and those in flight (claimed, not yet recorded) at every claim (one user's share).
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (webhook_id, event) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_claimed_idx ON webhook_deliveries (locked_until) WHERE status = 'pending' AND locked_until IS NOT NULL;
