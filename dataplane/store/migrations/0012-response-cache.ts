/**
 * The response cache. Embeddings are stored as real[] (normalised, so a dot product is the cosine
 * similarity): this runs on every Postgres and on PGlite. Where the database has pgvector, the
 * store adds a vector column and an HNSW index at start (see cache-repository.ts), outside the
 * numbered migrations, because the extension may appear later.
 */
export const sql = `
CREATE TABLE cache_configs (
  customer_id text PRIMARY KEY,
  config jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE cache_entries (
  customer_id text NOT NULL,
  key_hash text NOT NULL,
  scope_hash text NOT NULL,
  model text NOT NULL,
  model_version text,
  response jsonb NOT NULL,
  prompt_tokens integer NOT NULL,
  completion_tokens integer NOT NULL,
  cost_usd double precision NOT NULL,
  embedding_model text,
  embedding real[],
  hits integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  last_hit_at timestamptz,
  PRIMARY KEY (customer_id, key_hash)
);
CREATE INDEX cache_entries_scope_idx ON cache_entries (customer_id, scope_hash, embedding_model);
CREATE INDEX cache_entries_list_idx ON cache_entries (customer_id, created_at);
CREATE INDEX cache_entries_expiry_idx ON cache_entries (expires_at);
`;
