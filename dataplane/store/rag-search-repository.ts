import type { Database, SqlParam } from "./database.js";
import {
  exactDotProduct,
  pgvectorDistance,
  vectorDims,
  withIterativeScan,
  type VectorSearchKind,
} from "./vector-search.js";

/**
 * The text search configuration of `rag_chunks.tsv` (migration 15): query terms must be normalised
 * with the same one, or stemmed query words would not meet the stored lexemes.
 */
export const TEXT_SEARCH_CONFIG = "english";

/** BM25 parameters (Robertson and Zaragoza; Lucene's and Elasticsearch's defaults). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** Which chunks a search may return: always one customer's, one collection's. */
export interface SearchScope {
  customerId: string;
  collectionId: string;
  /** Only chunks of these documents (of the same customer and collection). */
  documentIds?: readonly string[];
  /**
   * Document metadata conditions, all of which must hold; each holds when the document's metadata
   * contains one of the objects (e.g. `[{"lang":"en"},{"lang":"de"}]` for lang in (en, de)).
   */
  metadata?: readonly (readonly Record<string, unknown>[])[];
  /** Leave out chunks flagged as indirect prompt injection at ingestion. */
  excludeInjection: boolean;
}

export interface ScoredChunk {
  chunkId: string;
  score: number;
}

/** A search result's chunk with the document fields a result shows. */
export interface FoundChunk {
  id: string;
  documentId: string;
  filename: string;
  documentMetadata: Record<string, unknown>;
  position: number;
  text: string;
  heading: string | null;
  page: number | null;
  tokenCount: number;
  injection: boolean;
  injectionScore: number;
}

interface FoundRow {
  id: string;
  document_id: string;
  filename: string;
  metadata: Record<string, unknown>;
  position: number;
  text: string;
  heading: string | null;
  page: number | null;
  token_count: number;
  injection: boolean;
  injection_score: number | string;
}

/**
 * A tsquery literal that matches any of the lexemes (OR): each lexeme quoted, so it is taken as
 * it is (already normalised) and no character of it is read as an operator.
 */
export function anyLexemeQuery(lexemes: readonly string[]): string {
  return lexemes.map((l) => `'${l.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`).join(" | ");
}

/**
 * The search queries over RAG chunks. Every query names the customer and the collection; filters
 * on the chunk's document join `rag_documents` of the same customer.
 *
 * Keyword search is BM25 computed in SQL over the `tsv` column: candidates are the chunks whose
 * tsvector contains any query lexeme (the GIN index); a term's frequency is the number of its
 * positions in the chunk (positions in the heading, weight A, count twice); its document frequency
 * and the collection's chunk count and mean chunk length (in tokens) are taken over the whole
 * collection, so filters narrow the results without changing the scores.
 */
export class RagSearchRepository {
  constructor(
    private readonly db: Database,
    private readonly vectorKind: () => VectorSearchKind,
  ) {}

  /** The distinct lexemes of a query text, normalised like the stored chunks. */
  async queryLexemes(text: string): Promise<string[]> {
    const rows = await this.db.query<{ lexeme: string }>(
      `SELECT DISTINCT lexeme FROM unnest(to_tsvector('${TEXT_SEARCH_CONFIG}', $1)) ORDER BY lexeme`,
      [text],
    );
    return rows.map((r) => r.lexeme);
  }

  /** The `limit` best chunks by BM25 for the lexemes; none when there are no lexemes. */
  async keyword(
    scope: SearchScope,
    lexemes: readonly string[],
    limit: number,
  ): Promise<ScoredChunk[]> {
    if (lexemes.length === 0) return [];
    const params: SqlParam[] = [
      scope.customerId,
      scope.collectionId,
      anyLexemeQuery(lexemes),
      lexemes,
    ];
    const filter = scopeFilter(scope, params, "c");
    params.push(limit);
    const rows = await this.db.query<{ id: string; score: number | string }>(
      `WITH matched AS (
         SELECT c.id, c.document_id, c.token_count, c.injection, c.tsv FROM rag_chunks c
          WHERE c.customer_id = $1 AND c.collection_id = $2 AND c.tsv @@ $3::tsquery),
       tf AS (
         SELECT m.id, u.lexeme,
                cardinality(u.positions) + cardinality(array_positions(u.weights, 'A')) AS tf
           FROM matched m, unnest(m.tsv) AS u(lexeme, positions, weights)
          WHERE u.lexeme = ANY($4::text[])),
       df AS (SELECT lexeme, count(*) AS n FROM tf GROUP BY lexeme),
       stats AS (
         SELECT count(*) AS n, greatest(avg(token_count), 1) AS avgdl FROM rag_chunks
          WHERE customer_id = $1 AND collection_id = $2)
       SELECT c.id, sum(ln(1 + (s.n - df.n + 0.5) / (df.n + 0.5))
                  * tf.tf * ${BM25_K1 + 1}
                  / (tf.tf + ${BM25_K1} * (${1 - BM25_B} + ${BM25_B} * c.token_count / s.avgdl))) AS score
         FROM tf JOIN df USING (lexeme) JOIN matched c ON c.id = tf.id CROSS JOIN stats s
        WHERE ${filter}
        GROUP BY c.id ORDER BY score DESC, c.id LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({ chunkId: r.id, score: Number(r.score) }));
  }

  /**
   * The `limit` chunks nearest to a unit vector (cosine similarity = dot product): pgvector's HNSW
   * index where the database has it, else an exact scan of the collection's vectors.
   */
  async vector(
    scope: SearchScope,
    vector: readonly number[],
    limit: number,
  ): Promise<ScoredChunk[]> {
    const d = vectorDims(vector);
    const params: SqlParam[] = [scope.customerId, scope.collectionId];
    const filter = scopeFilter(scope, params, "c");
    const base = `FROM rag_chunks c WHERE c.customer_id = $1 AND c.collection_id = $2
      AND array_length(c.embedding, 1) = ${d} AND ${filter}`;
    if (this.vectorKind() === "pgvector_hnsw") {
      params.push(JSON.stringify(vector), limit);
      const v = `$${params.length - 1}`;
      const distance = pgvectorDistance("c.embedding", d, v);
      const rows = await withIterativeScan(this.db, (tx) =>
        tx.query<{ id: string; score: number | string }>(
          `SELECT c.id, -(${distance}) AS score ${base}
            ORDER BY ${distance} LIMIT $${params.length}`,
          params,
        ),
      );
      return rows.map((r) => ({ chunkId: r.id, score: Number(r.score) }));
    }
    params.push(vector, limit);
    const rows = await this.db.query<{ id: string; score: number | string }>(
      `SELECT c.id, ${exactDotProduct("c.embedding", `$${params.length - 1}`)} AS score ${base}
        ORDER BY score DESC, c.id LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({ chunkId: r.id, score: Number(r.score) }));
  }

  /** The chunks (of this customer only) with their documents' filename and metadata. */
  async chunks(customerId: string, ids: readonly string[]): Promise<Map<string, FoundChunk>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.query<FoundRow>(
      `SELECT c.id, c.document_id, d.filename, d.metadata, c.position, c.text, c.heading, c.page,
              c.token_count, c.injection, c.injection_score
         FROM rag_chunks c JOIN rag_documents d ON d.id = c.document_id AND d.customer_id = $1
        WHERE c.customer_id = $1 AND c.id = ANY($2::text[])`,
      [customerId, ids],
    );
    return new Map(
      rows.map((r) => [
        r.id,
        {
          id: r.id,
          documentId: r.document_id,
          filename: r.filename,
          documentMetadata: r.metadata,
          position: Number(r.position),
          text: r.text,
          heading: r.heading,
          page: r.page === null ? null : Number(r.page),
          tokenCount: Number(r.token_count),
          injection: r.injection,
          injectionScore: Number(r.injection_score),
        },
      ]),
    );
  }
}

/**
 * The scope's conditions beyond customer and collection, on chunk alias `c` (which must have
 * document_id and injection), adding their parameters to `params`.
 */
function scopeFilter(scope: SearchScope, params: SqlParam[], c: string): string {
  const parts: string[] = [];
  if (scope.excludeInjection) parts.push(`NOT ${c}.injection`);
  if (scope.documentIds) {
    params.push(scope.documentIds);
    parts.push(`${c}.document_id = ANY($${params.length}::text[])`);
  }
  const metadata = scope.metadata ?? [];
  if (metadata.length > 0) {
    const conditions = metadata.map((anyOf) => {
      params.push(anyOf.map((o) => JSON.stringify(o)));
      return `d.metadata @> ANY($${params.length}::jsonb[])`;
    });
    params.push(scope.customerId);
    parts.push(`EXISTS (SELECT 1 FROM rag_documents d WHERE d.id = ${c}.document_id
      AND d.customer_id = $${params.length} AND ${conditions.join(" AND ")})`);
  }
  return parts.length === 0 ? "true" : parts.join(" AND ");
}
