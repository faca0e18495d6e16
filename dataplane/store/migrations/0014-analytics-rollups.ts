/**
 * Analytics rollups, written as calls are recorded: one row per (minute, customer, model) and one
 * per (hour, customer, model), each with counters and a DDSketch of the completed calls' latency
 * (mergeable, so any window is a merge of rows, never a scan of calls).
 */
const rollupTable = (name: string) => `
CREATE TABLE ${name} (
  bucket_start timestamptz NOT NULL,
  customer_id text NOT NULL,
  model text NOT NULL,
  requests integer NOT NULL DEFAULT 0,
  failures integer NOT NULL DEFAULT 0,
  refusals integer NOT NULL DEFAULT 0,
  rate_limited integer NOT NULL DEFAULT 0,
  prompt_tokens bigint NOT NULL DEFAULT 0,
  completion_tokens bigint NOT NULL DEFAULT 0,
  cost_usd double precision NOT NULL DEFAULT 0,
  latency_ms_sum double precision NOT NULL DEFAULT 0,
  latency_sketch bytea,
  PRIMARY KEY (customer_id, bucket_start, model)
);
CREATE INDEX ${name}_by_time ON ${name} (bucket_start);
`;

export const sql = rollupTable("analytics_minute") + rollupTable("analytics_hour");
