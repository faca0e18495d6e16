/**
 * The audit table's query columns become generated from the hashed JSON, so they cannot disagree
 * with what the chain covers (an UPDATE of one is refused). occurred_at stays a plain column
 * (tombstones keep it, and a timestamptz cast is not immutable); verification compares it.
 * audit_quarantine keeps, base64-encoded, records the store refused even after escaping.
 */
export const sql = `
DROP INDEX IF EXISTS audit_records_request_idx;
ALTER TABLE audit_records DROP COLUMN kind, DROP COLUMN request_id, DROP COLUMN model,
  DROP COLUMN outcome;
ALTER TABLE audit_records
  ADD COLUMN kind text GENERATED ALWAYS AS (fields->>'kind') STORED,
  ADD COLUMN request_id text GENERATED ALWAYS AS (fields->>'request_id') STORED,
  ADD COLUMN model text GENERATED ALWAYS AS (fields->>'model') STORED,
  ADD COLUMN outcome text GENERATED ALWAYS AS (fields->>'outcome') STORED;
CREATE INDEX audit_records_request_idx ON audit_records (request_id);

CREATE TABLE audit_quarantine (
  id bigserial PRIMARY KEY,
  record_id text,
  customer_id text,
  quarantined_at timestamptz NOT NULL DEFAULT now(),
  reason text NOT NULL,
  error_code text,
  record_base64 text NOT NULL
);
CREATE INDEX audit_quarantine_customer_idx ON audit_quarantine (customer_id, quarantined_at);
`;
