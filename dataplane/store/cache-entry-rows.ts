/** Rows of cache_entries and the shapes CacheRepository takes and gives. */

export interface CacheEntry {
  customerId: string;
  keyHash: string;
  scopeHash: string;
  model: string;
  modelVersion: string | null;
  response: Record<string, unknown>;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  embeddingModel: string | null;
  embedding: number[] | null;
  expiresAt: Date;
}

export interface StoredEntry extends Omit<CacheEntry, "embedding" | "response"> {
  hits: number;
  createdAt: Date;
  lastHitAt: Date | null;
  semantic: boolean;
}

export interface NearestEntry {
  keyHash: string;
  similarity: number;
  response: Record<string, unknown>;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

export interface NearestRow {
  key_hash: string;
  similarity: number | string;
  response: Record<string, unknown>;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
}

export interface EntryRow {
  customer_id: string;
  key_hash: string;
  scope_hash: string;
  model: string;
  model_version: string | null;
  response?: Record<string, unknown>;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  embedding_model: string | null;
  semantic: boolean;
  hits: number;
  created_at: Date;
  expires_at: Date;
  last_hit_at: Date | null;
}

export const ENTRY_COLUMNS = `customer_id, key_hash, scope_hash, model, model_version, prompt_tokens,
  completion_tokens, cost_usd, embedding_model, embedding IS NOT NULL AS semantic, hits, created_at,
  expires_at, last_hit_at`;

export const toStored = (r: EntryRow): StoredEntry => ({
  customerId: r.customer_id,
  keyHash: r.key_hash,
  scopeHash: r.scope_hash,
  model: r.model,
  modelVersion: r.model_version,
  promptTokens: Number(r.prompt_tokens),
  completionTokens: Number(r.completion_tokens),
  costUsd: Number(r.cost_usd),
  embeddingModel: r.embedding_model,
  semantic: r.semantic,
  hits: Number(r.hits),
  createdAt: new Date(r.created_at),
  expiresAt: new Date(r.expires_at),
  lastHitAt: r.last_hit_at === null ? null : new Date(r.last_hit_at),
});
