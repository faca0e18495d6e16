export const sql = `
CREATE TABLE audit_chain_heads (
  customer_id text PRIMARY KEY,
  last_seq bigint NOT NULL,
  last_hash text NOT NULL
);

CREATE TABLE audit_records (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  seq bigint NOT NULL,
  occurred_at timestamptz NOT NULL,
  kind text,
  request_id text,
  model text,
  outcome text,
  fields jsonb,
  content jsonb,
  record_digest text NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL,
  tombstoned_at timestamptz,
  UNIQUE (customer_id, seq)
);
CREATE INDEX audit_records_time_idx ON audit_records (customer_id, occurred_at);
CREATE INDEX audit_records_request_idx ON audit_records (request_id);

CREATE TABLE audit_checkpoints (
  customer_id text NOT NULL,
  seq bigint NOT NULL,
  hash text NOT NULL,
  created_at timestamptz NOT NULL,
  signature text NOT NULL,
  key_id text NOT NULL,
  PRIMARY KEY (customer_id, seq)
);

CREATE TABLE audit_retention (
  customer_id text PRIMARY KEY,
  metadata_days integer NOT NULL CHECK (metadata_days >= 1),
  content_days integer NOT NULL CHECK (content_days >= 0),
  content_mode text NOT NULL CHECK (content_mode IN ('none', 'redacted', 'full')),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE audit_sweeps (
  id bigserial PRIMARY KEY,
  started_at timestamptz NOT NULL,
  finished_at timestamptz,
  content_removed integer NOT NULL DEFAULT 0,
  records_removed integer NOT NULL DEFAULT 0
);

CREATE TABLE legal_holds (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  from_time timestamptz NOT NULL,
  to_time timestamptz NOT NULL,
  reason text NOT NULL,
  scope jsonb NOT NULL DEFAULT '{}',
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by text,
  released_at timestamptz,
  released_by text,
  CHECK (from_time < to_time)
);
CREATE INDEX legal_holds_customer_idx ON legal_holds (customer_id, active);

CREATE TABLE compliance_exports (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('hipaa', 'soc2')),
  from_time timestamptz NOT NULL,
  to_time timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  error text,
  record_count integer,
  size_bytes bigint,
  sha256 text,
  chain_ok boolean,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz,
  deleted_at timestamptz
);
CREATE INDEX compliance_exports_customer_idx ON compliance_exports (customer_id, created_at);

CREATE TABLE compliance_export_chunks (
  export_id text NOT NULL REFERENCES compliance_exports (id) ON DELETE CASCADE,
  idx integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (export_id, idx)
);
`;
