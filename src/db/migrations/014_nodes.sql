-- The service's running processes. Each holds a session-level advisory lock on its id
-- (src/db/nodes.ts) for as long as it lives, on a connection of its own, and has a row here while
-- it runs: a node that can take another's lock knows that node is gone and ends its leases at
-- once instead of waiting for them to lapse.
CREATE TABLE nodes (
  id text PRIMARY KEY,
  address text,
  started_at timestamptz NOT NULL DEFAULT now()
);
