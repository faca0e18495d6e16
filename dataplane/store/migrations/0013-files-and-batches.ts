/**
 * Files (the OpenAI Files API, purpose batch / batch_output) and batch jobs. Every payload that a
 * caller wrote (file bytes, batch lines, results, metadata, errors) is kept as bytea or text, never
 * jsonb: a JSON text may carry escapes (\u0000, lone surrogates) that jsonb refuses.
 */
export const sql = `
CREATE TABLE files (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  purpose text NOT NULL,
  filename text NOT NULL,
  bytes bigint NOT NULL,
  created_at timestamptz NOT NULL,
  deleted_at timestamptz
);
CREATE INDEX files_by_customer ON files (customer_id, created_at DESC, id DESC);

CREATE TABLE file_chunks (
  file_id text NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  idx integer NOT NULL,
  data bytea NOT NULL,
  PRIMARY KEY (file_id, idx)
);

CREATE TABLE batches (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  key_id text NOT NULL,
  endpoint text NOT NULL,
  input_file_id text NOT NULL,
  completion_window text NOT NULL,
  metadata text,
  status text NOT NULL,
  errors text,
  output_file_id text,
  error_file_id text,
  total integer NOT NULL DEFAULT 0,
  completed integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  in_progress_at timestamptz,
  finalizing_at timestamptz,
  completed_at timestamptz,
  failed_at timestamptz,
  expired_at timestamptz,
  cancelling_at timestamptz,
  cancelled_at timestamptz,
  lease_owner text,
  lease_until timestamptz
);
CREATE INDEX batches_by_customer ON batches (customer_id, created_at DESC, id DESC);
CREATE INDEX batches_open ON batches (created_at)
  WHERE status IN ('validating', 'in_progress', 'finalizing', 'cancelling');

CREATE TABLE batch_lines (
  batch_id text NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
  line_no integer NOT NULL,
  custom_id text NOT NULL,
  body text NOT NULL,
  state text NOT NULL DEFAULT 'pending',
  owner text,
  result text,
  is_error boolean,
  PRIMARY KEY (batch_id, line_no)
);
CREATE INDEX batch_lines_pending ON batch_lines (batch_id, line_no) WHERE state = 'pending';
`;
