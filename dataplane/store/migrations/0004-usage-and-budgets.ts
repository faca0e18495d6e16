/**
 * Metering aggregated per minute, customer, key and model (budgets, analytics, recommendations),
 * and each customer's budget and custom rate limits.
 */
export const sql = `
CREATE TABLE usage_records (
  bucket_start timestamptz NOT NULL,
  customer_id text NOT NULL,
  key_id text NOT NULL,
  model text NOT NULL,
  requests integer NOT NULL DEFAULT 0,
  errors integer NOT NULL DEFAULT 0,
  rate_limited integer NOT NULL DEFAULT 0,
  prompt_tokens bigint NOT NULL DEFAULT 0,
  completion_tokens bigint NOT NULL DEFAULT 0,
  cost_usd double precision NOT NULL DEFAULT 0,
  latency_ms_sum bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (customer_id, bucket_start, key_id, model)
);

CREATE TABLE customer_budgets (
  customer_id text PRIMARY KEY,
  limit_usd double precision CHECK (limit_usd IS NULL OR limit_usd >= 0),
  period text NOT NULL DEFAULT 'monthly' CHECK (period IN ('monthly', 'weekly', 'daily')),
  mode text NOT NULL DEFAULT 'soft' CHECK (mode IN ('hard', 'soft')),
  alert_thresholds jsonb NOT NULL DEFAULT '[0.5, 0.8, 1.0]',
  requests_per_minute integer CHECK (requests_per_minute IS NULL OR requests_per_minute >= 1),
  tokens_per_minute integer CHECK (tokens_per_minute IS NULL OR tokens_per_minute >= 1),
  updated_at timestamptz NOT NULL DEFAULT now()
);
`;
