import type { RagChunk } from "../rag/rag-types.js";
import type { Database, Queryable, SqlParam } from "./database.js";
import {
  HnswIndexes,
  prepareVectorSearch,
  vectorDims,
  type VectorSearchKind,
} from "./vector-search.js";

interface ChunkRow {
  id: string;
  customer_id: string;
  collection_id: string;
  document_id: string;
  position: number;
  text: string;
  heading: string | null;
  page: number | null;
  token_count: number;
  injection: boolean;
  injection_score: number | string;
  pii_redactions: number;
  pii_entities: string[];
  embedding: number[] | null;
}

export const toChunk = (r: ChunkRow): RagChunk => ({
  id: r.id,
  customerId: r.customer_id,
  collectionId: r.collection_id,
  documentId: r.document_id,
  position: Number(r.position),
  text: r.text,
  heading: r.heading,
  page: r.page === null ? null : Number(r.page),
  tokenCount: Number(r.token_count),
  injection: r.injection,
  injectionScore: Number(r.injection_score),
  piiRedactions: Number(r.pii_redactions),
  piiEntities: r.pii_entities,
  embedding: r.embedding === null ? null : r.embedding.map(Number),
});

const COLUMNS = [
  "id",
  "customer_id",
  "collection_id",
  "document_id",
  "position",
  "text",
  "heading",
  "page",
  "token_count",
  "injection",
  "injection_score",
  "pii_redactions",
  "pii_entities",
  "embedding",
] as const;
const CASTS: Partial<Record<(typeof COLUMNS)[number], string>> = {
  pii_entities: "::text[]",
  embedding: "::real[]",
};
const ROWS_PER_INSERT = 200;

/** Writes chunks (inside the caller's transaction), ROWS_PER_INSERT rows per statement. */
export async function insertChunks(db: Queryable, chunks: readonly RagChunk[]): Promise<void> {
  for (let start = 0; start < chunks.length; start += ROWS_PER_INSERT) {
    const batch = chunks.slice(start, start + ROWS_PER_INSERT);
    const params: SqlParam[] = [];
    const tuples = batch.map((c) => {
      const values: SqlParam[] = [
        c.id,
        c.customerId,
        c.collectionId,
        c.documentId,
        c.position,
        c.text,
        c.heading,
        c.page,
        c.tokenCount,
        c.injection,
        c.injectionScore,
        c.piiRedactions,
        c.piiEntities,
        c.embedding,
      ];
      const refs = values.map((v, i) => {
        params.push(v);
        return `$${params.length}${CASTS[COLUMNS[i] as (typeof COLUMNS)[number]] ?? ""}`;
      });
      return `(${refs.join(", ")})`;
    });
    await db.query(
      `INSERT INTO rag_chunks (${COLUMNS.join(", ")}) VALUES ${tuples.join(", ")}`,
      params,
    );
  }
}

/**
 * RAG chunks: reads for management (every query names the customer) and the vector index. The
 * search queries themselves live with the search (rag search repository).
 */
export class RagChunkRepository {
  private kind: VectorSearchKind = "exact_scan";
  private readonly indexes: HnswIndexes;

  constructor(private readonly db: Database) {
    this.indexes = new HnswIndexes(db, "rag_chunks", "embedding");
  }

  /** Creates pgvector if the database offers it; returns the vector search in use. */
  async prepareVectors(): Promise<VectorSearchKind> {
    this.kind = await prepareVectorSearch(this.db);
    return this.kind;
  }

  get searchKind(): VectorSearchKind {
    return this.kind;
  }

  /** Makes sure vectors of this length are indexed (HNSW where pgvector exists; else nothing). */
  async prepareDimensions(vector: readonly number[]): Promise<void> {
    if (this.kind === "pgvector_hnsw") await this.indexes.ensure(vectorDims(vector));
  }

  /** A page of a document's chunks in order, without their vectors. */
  async listForDocument(
    customerId: string,
    documentId: string,
    opts: { limit: number; offset: number },
  ): Promise<RagChunk[]> {
    const rows = await this.db.query<ChunkRow>(
      `SELECT ${COLUMNS.filter((c) => c !== "embedding").join(", ")}, NULL::real[] AS embedding
         FROM rag_chunks WHERE customer_id = $1 AND document_id = $2
        ORDER BY position LIMIT $3 OFFSET $4`,
      [customerId, documentId, opts.limit + 1, opts.offset],
    );
    return rows.map(toChunk);
  }

  /** Chunks by id, of one customer only (ids of another customer are silently absent). */
  async byIds(customerId: string, ids: readonly string[]): Promise<RagChunk[]> {
    const rows = await this.db.query<ChunkRow>(
      `SELECT ${COLUMNS.join(", ")} FROM rag_chunks WHERE customer_id = $1 AND id = ANY($2::text[])`,
      [customerId, ids],
    );
    return rows.map(toChunk);
  }
}
