/**
 * Retrieval-augmented generation (docs/rag.md): collections, documents (with their uploaded bytes
 * kept only until ingestion finishes) and chunks. A chunk carries a generated full-text column
 * (`tsv`, English configuration, heading weighted A and text B) under a GIN index for keyword
 * search, and its embedding as real[] (unit length, so a dot product is the cosine similarity),
 * stored the way the response cache stores vectors: where the database has pgvector, the store
 * adds an HNSW index per dimension at start (store/vector-search.ts), outside the numbered
 * migrations, because the extension may appear later.
 */
export const sql = `
CREATE TABLE rag_collections (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  name text NOT NULL,
  description text,
  classification text NOT NULL,
  embedding_model text,
  embedding_dimensions integer,
  chunk_size_tokens integer NOT NULL,
  chunk_overlap_tokens integer NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (customer_id, name)
);
CREATE INDEX rag_collections_by_customer ON rag_collections (customer_id, created_at DESC, id DESC);

CREATE TABLE rag_documents (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  collection_id text NOT NULL REFERENCES rag_collections (id) ON DELETE CASCADE,
  key_id text NOT NULL,
  filename text NOT NULL,
  content_type text NOT NULL,
  content_hash text NOT NULL,
  bytes bigint NOT NULL,
  status text NOT NULL,
  error_code text,
  error text,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  chunk_count integer NOT NULL DEFAULT 0,
  page_count integer,
  token_count integer NOT NULL DEFAULT 0,
  pii_redactions integer NOT NULL DEFAULT 0,
  injection_chunks integer NOT NULL DEFAULT 0,
  attempts integer NOT NULL DEFAULT 0,
  lease_owner text,
  lease_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz,
  UNIQUE (customer_id, collection_id, content_hash)
);
CREATE INDEX rag_documents_by_collection
  ON rag_documents (customer_id, collection_id, created_at DESC, id DESC);
CREATE INDEX rag_documents_open ON rag_documents (created_at)
  WHERE status IN ('queued', 'processing');

CREATE TABLE rag_document_sources (
  document_id text PRIMARY KEY REFERENCES rag_documents (id) ON DELETE CASCADE,
  data bytea NOT NULL
);

CREATE TABLE rag_chunks (
  id text PRIMARY KEY,
  customer_id text NOT NULL,
  collection_id text NOT NULL REFERENCES rag_collections (id) ON DELETE CASCADE,
  document_id text NOT NULL REFERENCES rag_documents (id) ON DELETE CASCADE,
  position integer NOT NULL,
  text text NOT NULL,
  heading text,
  page integer,
  token_count integer NOT NULL,
  injection boolean NOT NULL DEFAULT false,
  injection_score real NOT NULL DEFAULT 0,
  pii_redactions integer NOT NULL DEFAULT 0,
  pii_entities text[] NOT NULL DEFAULT '{}',
  embedding real[],
  tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', coalesce(heading, '')), 'A') ||
    setweight(to_tsvector('english', text), 'B')
  ) STORED,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (document_id, position)
);
CREATE INDEX rag_chunks_by_collection ON rag_chunks (customer_id, collection_id, document_id, position);
CREATE INDEX rag_chunks_tsv ON rag_chunks USING gin (tsv);
`;
