export const sql = `
CREATE TABLE models (
  id text PRIMARY KEY,
  name text NOT NULL,
  version text NOT NULL,
  architecture text,
  modality text NOT NULL CHECK (modality IN ('text', 'embedding', 'audio', 'multimodal')),
  status text NOT NULL
    CHECK (status IN ('registered', 'building', 'ready', 'failed', 'deprecated', 'deregistered')),
  aliases jsonb NOT NULL DEFAULT '[]',
  required_tier text NOT NULL CHECK (required_tier IN ('free', 'pro', 'business', 'enterprise')),
  input_per_1k double precision NOT NULL DEFAULT 0 CHECK (input_per_1k >= 0),
  output_per_1k double precision NOT NULL DEFAULT 0 CHECK (output_per_1k >= 0),
  context_window integer CHECK (context_window > 0),
  engine_artifacts jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (name, version)
);

CREATE TABLE deployments (
  id text PRIMARY KEY,
  model_id text NOT NULL REFERENCES models (id),
  status text NOT NULL
    CHECK (status IN ('pending', 'provisioning', 'running', 'failed', 'terminated')),
  endpoint_url text,
  scaling jsonb NOT NULL DEFAULT '{}',
  reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deployments_model_idx ON deployments (model_id);
CREATE INDEX deployments_status_idx ON deployments (status);

CREATE TABLE backends (
  id text PRIMARY KEY,
  customer_id text NOT NULL REFERENCES customers (id),
  name text NOT NULL,
  base_url text NOT NULL,
  credential_ciphertext text,
  models jsonb NOT NULL DEFAULT '[]',
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX backends_customer_idx ON backends (customer_id);
`;
