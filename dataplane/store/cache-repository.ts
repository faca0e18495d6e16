import type { Database, SqlParam } from "./database.js";
import {
  HnswIndexes,
  prepareVectorSearch,
  vectorDims as dims,
  type VectorSearchKind,
} from "./vector-search.js";
import {
  ENTRY_COLUMNS,
  toStored,
  type CacheEntry,
  type EntryRow,
  type NearestEntry,
  type NearestRow,
  type StoredEntry,
} from "./cache-entry-rows.js";

/** Entries the exact scan compares with, newest first (see docs/cache.md). */
export const EXACT_SCAN_LIMIT = 2_000;

/**
 * The response cache's entries and per-customer settings. Every query names the customer.
 * Semantic lookups use pgvector (an HNSW index per embedding dimension over `embedding::vector`)
 * when the database has the extension, else an exact scan (a dot product per stored vector of the
 * same customer, model scope and embedding model).
 */
export class CacheRepository {
  private vectorSearch = false;
  private readonly indexes: HnswIndexes;

  constructor(private readonly db: Database) {
    this.indexes = new HnswIndexes(db, "cache_entries", "embedding");
  }

  /** Creates pgvector if the database offers it; returns the semantic search in use. */
  async prepareVectors(): Promise<VectorSearchKind> {
    this.vectorSearch = (await prepareVectorSearch(this.db)) === "pgvector_hnsw";
    return this.searchKind;
  }

  get searchKind(): VectorSearchKind {
    return this.vectorSearch ? "pgvector_hnsw" : "exact_scan";
  }

  async config(customerId: string): Promise<Record<string, unknown> | undefined> {
    const [row] = await this.db.query<{ config: Record<string, unknown> }>(
      "SELECT config FROM cache_configs WHERE customer_id = $1",
      [customerId],
    );
    return row?.config;
  }

  async setConfig(customerId: string, config: object): Promise<void> {
    await this.db.query(
      `INSERT INTO cache_configs (customer_id, config) VALUES ($1, $2::jsonb)
       ON CONFLICT (customer_id) DO UPDATE SET config = EXCLUDED.config, updated_at = now()`,
      [customerId, JSON.stringify(config)],
    );
  }

  async exact(
    customerId: string,
    keyHash: string,
    now: Date,
  ): Promise<(NearestEntry & { similarity: 1 }) | undefined> {
    const [row] = await this.db.query<{
      response: Record<string, unknown>;
      prompt_tokens: number;
      completion_tokens: number;
      cost_usd: number;
    }>(
      `SELECT response, prompt_tokens, completion_tokens, cost_usd FROM cache_entries
        WHERE customer_id = $1 AND key_hash = $2 AND expires_at > $3`,
      [customerId, keyHash, now],
    );
    if (!row) return undefined;
    return {
      keyHash,
      similarity: 1,
      response: row.response,
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      costUsd: Number(row.cost_usd),
    };
  }

  /** The most similar live entry of the same scope and embedding model (cosine of unit vectors). */
  async nearest(
    customerId: string,
    scopeHash: string,
    embeddingModel: string,
    vector: readonly number[],
    now: Date,
  ): Promise<NearestEntry | undefined> {
    const d = dims(vector);
    const params: SqlParam[] = [customerId, scopeHash, embeddingModel, now];
    const live =
      "customer_id = $1 AND scope_hash = $2 AND embedding_model = $3 AND expires_at > $4";
    const filter = `${live} AND array_length(embedding, 1) = ${d}`;
    const rows = this.vectorSearch
      ? await this.ensureIndex(d).then(() =>
          this.db.transaction(async (tx) => {
            // pgvector 0.8: keep scanning the index until enough rows pass the filter.
            await tx.query("SET LOCAL hnsw.iterative_scan = relaxed_order").catch(() => undefined);
            return tx.query<NearestRow>(
              `SELECT key_hash, response, prompt_tokens, completion_tokens, cost_usd,
                    -((embedding::vector(${d})) <#> ($5::text)::vector(${d})) AS similarity
               FROM cache_entries WHERE ${filter}
              ORDER BY (embedding::vector(${d})) <#> ($5::text)::vector(${d}) LIMIT 1`,
              [...params, JSON.stringify(vector)],
            );
          }),
        )
      : await this.scan(live, d, params, vector);
    const [row] = rows;
    if (!row) return undefined;
    return {
      keyHash: row.key_hash,
      similarity: Number(row.similarity),
      response: row.response,
      promptTokens: Number(row.prompt_tokens),
      completionTokens: Number(row.completion_tokens),
      costUsd: Number(row.cost_usd),
    };
  }

  /**
   * The exact scan: a dot product with each of the newest EXACT_SCAN_LIMIT live entries of the
   * scope (bounded, so a miss never scans an unbounded table; read in order from
   * cache_entries_newest_idx), then the best entry by key. The dimension is checked outside the
   * bounded read (one embedding model has one dimension) so that the planner reads the index.
   */
  private async scan(
    live: string,
    d: number,
    params: SqlParam[],
    vector: readonly number[],
  ): Promise<NearestRow[]> {
    const [best] = await this.db.query<{ key_hash: string; similarity: number | string }>(
      `SELECT key_hash, (SELECT sum(a * b) FROM unnest(embedding, $5::real[]) AS t(a, b)) AS similarity
         FROM (SELECT key_hash, embedding FROM cache_entries WHERE ${live}
                ORDER BY created_at DESC LIMIT ${EXACT_SCAN_LIMIT}) newest
        WHERE array_length(embedding, 1) = ${d}
        ORDER BY similarity DESC LIMIT 1`,
      [...params, vector],
    );
    if (!best) return [];
    const rows = await this.db.query<NearestRow>(
      `SELECT key_hash, response, prompt_tokens, completion_tokens, cost_usd, $3::float8 AS similarity
         FROM cache_entries WHERE customer_id = $1 AND key_hash = $2`,
      [params[0] as string, best.key_hash, Number(best.similarity)],
    );
    return rows;
  }

  /** The HNSW index of vectors of this length (store/vector-search.ts, shared with RAG). */
  private ensureIndex(d: number): Promise<void> {
    return this.indexes.ensure(d);
  }

  /** Stores (or replaces) an entry. */
  async put(e: CacheEntry): Promise<void> {
    if (this.vectorSearch && e.embedding) await this.ensureIndex(dims(e.embedding));
    await this.db.query(
      `INSERT INTO cache_entries (customer_id, key_hash, scope_hash, model, model_version, response,
         prompt_tokens, completion_tokens, cost_usd, embedding_model, embedding, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11::real[], $12)
       ON CONFLICT (customer_id, key_hash) DO UPDATE SET response = EXCLUDED.response,
         prompt_tokens = EXCLUDED.prompt_tokens, completion_tokens = EXCLUDED.completion_tokens,
         cost_usd = EXCLUDED.cost_usd, embedding_model = EXCLUDED.embedding_model,
         embedding = EXCLUDED.embedding, expires_at = EXCLUDED.expires_at, created_at = now(),
         hits = 0, last_hit_at = NULL`,
      [
        e.customerId,
        e.keyHash,
        e.scopeHash,
        e.model,
        e.modelVersion,
        JSON.stringify(e.response),
        e.promptTokens,
        e.completionTokens,
        e.costUsd,
        e.embeddingModel,
        e.embedding,
        e.expiresAt,
      ],
    );
  }

  async recordHit(customerId: string, keyHash: string, now: Date): Promise<void> {
    await this.db.query(
      `UPDATE cache_entries SET hits = hits + 1, last_hit_at = $3
        WHERE customer_id = $1 AND key_hash = $2`,
      [customerId, keyHash, now],
    );
  }

  /** A page of live entries, newest first (limit + 1 rows). */
  async list(
    customerId: string,
    opts: { model?: string; limit: number; offset: number; now: Date },
  ): Promise<StoredEntry[]> {
    const rows = await this.db.query<EntryRow>(
      `SELECT ${ENTRY_COLUMNS} FROM cache_entries
        WHERE customer_id = $1 AND ($2::text IS NULL OR model = $2) AND expires_at > $3
        ORDER BY created_at DESC, key_hash LIMIT $4 OFFSET $5`,
      [customerId, opts.model ?? null, opts.now, opts.limit + 1, opts.offset],
    );
    return rows.map(toStored);
  }

  /** Removes a customer's entries of a model and/or with a key hash; returns how many. */
  async invalidate(customerId: string, by: { model?: string; keyHash?: string }): Promise<number> {
    const rows = await this.db.query<{ key_hash: string }>(
      `DELETE FROM cache_entries WHERE customer_id = $1
          AND ($2::text IS NULL OR model = $2) AND ($3::text IS NULL OR key_hash = $3)
        RETURNING key_hash`,
      [customerId, by.model ?? null, by.keyHash ?? null],
    );
    return rows.length;
  }

  async flush(customerId: string): Promise<number> {
    const rows = await this.db.query<{ key_hash: string }>(
      "DELETE FROM cache_entries WHERE customer_id = $1 RETURNING key_hash",
      [customerId],
    );
    return rows.length;
  }

  /** Deletes expired entries of every customer, at most `limit` per call. */
  async deleteExpired(now: Date, limit: number): Promise<number> {
    const rows = await this.db.query<{ key_hash: string }>(
      `DELETE FROM cache_entries WHERE ctid IN (
         SELECT ctid FROM cache_entries WHERE expires_at <= $1 LIMIT $2) RETURNING key_hash`,
      [now, limit],
    );
    return rows.length;
  }
}
