import type { ClassificationLevel } from "../core/identity.js";
import type { CollectionTotals, RagCollection } from "../rag/rag-types.js";
import type { Queryable } from "./database.js";

interface CollectionRow {
  id: string;
  customer_id: string;
  name: string;
  description: string | null;
  classification: ClassificationLevel;
  embedding_model: string | null;
  embedding_dimensions: number | null;
  chunk_size_tokens: number;
  chunk_overlap_tokens: number;
  metadata: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

const toCollection = (r: CollectionRow): RagCollection => ({
  id: r.id,
  customerId: r.customer_id,
  name: r.name,
  description: r.description,
  classification: r.classification,
  embeddingModel: r.embedding_model,
  embeddingDimensions: r.embedding_dimensions === null ? null : Number(r.embedding_dimensions),
  chunkSizeTokens: Number(r.chunk_size_tokens),
  chunkOverlapTokens: Number(r.chunk_overlap_tokens),
  metadata: r.metadata,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

export type NewCollection = Omit<RagCollection, "embeddingDimensions" | "createdAt" | "updatedAt">;
export type CollectionPatch = Partial<
  Pick<
    RagCollection,
    | "name"
    | "description"
    | "classification"
    | "chunkSizeTokens"
    | "chunkOverlapTokens"
    | "metadata"
  >
>;

/** RAG collections. Every query names the customer. */
export class RagCollectionRepository {
  constructor(private readonly db: Queryable) {}

  /** Creates a collection; undefined when the customer already has one of that name. */
  async create(c: NewCollection, now: Date): Promise<RagCollection | undefined> {
    const [row] = await this.db.query<CollectionRow>(
      `INSERT INTO rag_collections (id, customer_id, name, description, classification,
         embedding_model, chunk_size_tokens, chunk_overlap_tokens, metadata, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $10)
       ON CONFLICT (customer_id, name) DO NOTHING RETURNING *`,
      [
        c.id,
        c.customerId,
        c.name,
        c.description,
        c.classification,
        c.embeddingModel,
        c.chunkSizeTokens,
        c.chunkOverlapTokens,
        JSON.stringify(c.metadata),
        now,
      ],
    );
    return row ? toCollection(row) : undefined;
  }

  async get(customerId: string, id: string): Promise<RagCollection | undefined> {
    const [row] = await this.db.query<CollectionRow>(
      "SELECT * FROM rag_collections WHERE customer_id = $1 AND id = $2",
      [customerId, id],
    );
    return row ? toCollection(row) : undefined;
  }

  /**
   * A page of the customer's collections, newest first (limit + 1 rows, so the caller knows
   * whether more follow), only those whose classification is in `readable` (see rag-access.ts).
   */
  async list(
    customerId: string,
    opts: { readable: readonly ClassificationLevel[]; limit: number; offset: number },
  ): Promise<RagCollection[]> {
    const rows = await this.db.query<CollectionRow>(
      `SELECT * FROM rag_collections WHERE customer_id = $1 AND classification = ANY($2::text[])
        ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
      [customerId, opts.readable, opts.limit + 1, opts.offset],
    );
    return rows.map(toCollection);
  }

  /** Applies a patch; undefined when the collection does not exist (or the new name is taken). */
  async update(
    customerId: string,
    id: string,
    patch: CollectionPatch,
    now: Date,
  ): Promise<RagCollection | undefined> {
    const [row] = await this.db.query<CollectionRow>(
      `UPDATE rag_collections SET
          name = COALESCE($3, name),
          description = CASE WHEN $4::boolean THEN $5 ELSE description END,
          classification = COALESCE($6, classification),
          chunk_size_tokens = COALESCE($7, chunk_size_tokens),
          chunk_overlap_tokens = COALESCE($8, chunk_overlap_tokens),
          metadata = COALESCE($9::jsonb, metadata),
          updated_at = $10
        WHERE customer_id = $1 AND id = $2 RETURNING *`,
      [
        customerId,
        id,
        patch.name ?? null,
        patch.description !== undefined,
        patch.description ?? null,
        patch.classification ?? null,
        patch.chunkSizeTokens ?? null,
        patch.chunkOverlapTokens ?? null,
        patch.metadata === undefined ? null : JSON.stringify(patch.metadata),
        now,
      ],
    );
    return row ? toCollection(row) : undefined;
  }

  /** True when the customer has another collection of this name. */
  async nameTaken(customerId: string, name: string, exceptId: string): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      "SELECT id FROM rag_collections WHERE customer_id = $1 AND name = $2 AND id <> $3",
      [customerId, name, exceptId],
    );
    return rows.length > 0;
  }

  /** Records the embedding length the first time a chunk of the collection is embedded. */
  async setEmbeddingDimensions(customerId: string, id: string, dimensions: number): Promise<void> {
    await this.db.query(
      `UPDATE rag_collections SET embedding_dimensions = $3
        WHERE customer_id = $1 AND id = $2 AND embedding_dimensions IS NULL`,
      [customerId, id, dimensions],
    );
  }

  /** Deletes the collection with its documents, sources and chunks (ON DELETE CASCADE). */
  async delete(customerId: string, id: string): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      "DELETE FROM rag_collections WHERE customer_id = $1 AND id = $2 RETURNING id",
      [customerId, id],
    );
    return rows.length > 0;
  }

  /** Document, chunk and byte totals of some of a customer's collections. */
  async totals(customerId: string, ids: readonly string[]): Promise<Map<string, CollectionTotals>> {
    const rows = await this.db.query<{
      collection_id: string;
      documents: number | string;
      chunks: number | string | null;
      bytes: number | string | null;
    }>(
      `SELECT collection_id, count(*) AS documents, sum(chunk_count) AS chunks,
              sum(bytes) FILTER (WHERE status <> 'failed') AS bytes
         FROM rag_documents WHERE customer_id = $1 AND collection_id = ANY($2::text[])
        GROUP BY collection_id`,
      [customerId, ids],
    );
    const out = new Map<string, CollectionTotals>();
    for (const id of ids) out.set(id, { documents: 0, chunks: 0, bytes: 0 });
    for (const r of rows) {
      out.set(r.collection_id, {
        documents: Number(r.documents),
        chunks: Number(r.chunks ?? 0),
        bytes: Number(r.bytes ?? 0),
      });
    }
    return out;
  }
}
