export const sql = `
CREATE TABLE routes (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  name text NOT NULL,
  match jsonb NOT NULL,
  strategy text NOT NULL,
  targets jsonb NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX routes_customer_idx ON routes (customer_id, created_at);
`;
