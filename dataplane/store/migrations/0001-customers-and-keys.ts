export const sql = `
CREATE TABLE customers (
  id text PRIMARY KEY,
  name text NOT NULL,
  tier text NOT NULL CHECK (tier IN ('free', 'pro', 'business', 'enterprise')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  customer_id text NOT NULL REFERENCES customers (id),
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'member')),
  classification_floor text NOT NULL
    CHECK (classification_floor IN ('public', 'internal', 'confidential', 'restricted')),
  key_hash text NOT NULL UNIQUE,
  key_hint text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  created_by text
);

CREATE INDEX api_keys_customer_idx ON api_keys (customer_id);
`;
