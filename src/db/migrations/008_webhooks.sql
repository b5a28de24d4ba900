-- Webhooks (DESIGN 2.7): endpoints, their deliveries and every attempt.
CREATE TABLE webhooks (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  url             text NOT NULL,
  events          text[] NOT NULL,
  secret          text NOT NULL,
  active          boolean NOT NULL DEFAULT true,
  disabled_reason text,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_user_idx ON webhooks (user_id, created_at DESC);

-- One event for one endpoint. Its id is the webhook-id, the same on every attempt. Deliveries
-- with an order key (game.move: the game) go out one at a time, in seq order.
CREATE TABLE webhook_deliveries (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  webhook_id       uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event            text NOT NULL,
  body             text NOT NULL,
  order_key        text,
  seq              bigint NOT NULL DEFAULT 0,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz NOT NULL DEFAULT now(),
  locked_until     timestamptz,
  last_status_code integer,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  delivered_at     timestamptz
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries (webhook_id, order_key, seq) WHERE status = 'pending' AND order_key IS NOT NULL;
CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (webhook_id, created_at DESC);

CREATE TABLE webhook_attempts (
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt     integer NOT NULL,
  at          timestamptz NOT NULL DEFAULT now(),
  status_code integer,
  error       text,
  duration_ms integer NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);

-- Games whose moves go to someone's game.move webhook, and the next ply to fan out. The move
-- path never touches this: the dispatcher reads the committed game_moves rows after next_ply
-- (a game's moves commit one after another, so nothing can appear behind the cursor).
CREATE TABLE webhook_move_feeds (
  game_id  uuid PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
  next_ply integer NOT NULL DEFAULT 1
);

