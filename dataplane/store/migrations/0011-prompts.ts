export const sql = `
CREATE TABLE prompts (
  customer_id text NOT NULL,
  slug text NOT NULL,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  tags jsonb NOT NULL DEFAULT '[]',
  ab_test jsonb,
  archived_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (customer_id, slug)
);
CREATE INDEX prompts_customer_idx ON prompts (customer_id, created_at);

CREATE TABLE prompt_versions (
  customer_id text NOT NULL,
  slug text NOT NULL,
  version integer NOT NULL,
  status text NOT NULL,
  messages jsonb NOT NULL,
  variables jsonb NOT NULL,
  model text,
  params jsonb NOT NULL DEFAULT '{}',
  note text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz,
  PRIMARY KEY (customer_id, slug, version),
  FOREIGN KEY (customer_id, slug) REFERENCES prompts (customer_id, slug) ON DELETE CASCADE
);
`;
