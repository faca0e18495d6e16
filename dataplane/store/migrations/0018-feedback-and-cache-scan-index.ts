/**
 * User feedback on calls that used a prompt template: one score per call (the last one given
 * counts), with the prompt version and A/B arm copied from the call's audit record. And the index
 * the semantic cache's exact scan reads the newest entries of a scope from (it replaces the scope
 * index, its prefix).
 */
export const sql = `
CREATE TABLE prompt_feedback (
  customer_id text NOT NULL,
  request_id text NOT NULL,
  slug text NOT NULL,
  version integer NOT NULL,
  arm text,
  ab_test_id text,
  score double precision NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (customer_id, request_id)
);
CREATE INDEX prompt_feedback_test_idx ON prompt_feedback (customer_id, slug, ab_test_id);

CREATE INDEX cache_entries_newest_idx
  ON cache_entries (customer_id, scope_hash, embedding_model, created_at DESC);
DROP INDEX cache_entries_scope_idx;
`;
