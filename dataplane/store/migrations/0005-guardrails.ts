export const sql = `
CREATE TABLE guardrail_policies (
  customer_id text PRIMARY KEY,
  policy jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE guardrail_rules (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  definition jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX guardrail_rules_customer_idx ON guardrail_rules (customer_id);

ALTER TABLE api_keys ADD COLUMN guardrail_override jsonb;
`;
