import { GatewayError } from "../core/errors.js";
import { sqlStateOf, type Database, type SqlParam } from "./database.js";
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

/** The constant Postgres' ts_rank divides a term's sum by (ζ(2) = π²/6; src/backend/utils/adt/tsrank.c). */
const TS_RANK_ZETA2 = 1.64493406685;

/**
 * How many positions of a one-lexeme tsquery `query` a tsvector holds, counting only positions of
 * the weights set to 1 in `weights` ({D,C,B,A}), computed by ts_rank in C rather than by unnesting
 * the tsvector (which costs about as much as everything else in a search). With weight 1 on the
 * n counted positions and 0 elsewhere, ts_rank (normalisation 0) is H(n)/ζ(2) where
 * H(n) = Σ 1/k² over k ≤ n, provided the counted positions come first (all of them, or the heading's
 * weight-A positions, which precede the text's in rag_chunks.tsv); and ζ(2) − H(n) = 1/n − 1/(2n²)
 * + O(1/n³), so n = round(1 / (ζ(2)·(1 − rank)) − 1/2), exact for every n a tsvector can hold
 * (at most 255 positions per lexeme). The repository test checks it against unnest().
 */
export function occurrences(
  tsv: string,
  query: string,
  weights: "{1,1,1,1}" | "{0,0,0,1}",
): string {
  return `round(1 / (${TS_RANK_ZETA2} * (1 - ts_rank('${weights}', ${tsv}, ${query}, 0)::float8)) - 0.5)`;
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
 * positions in the chunk (positions in the heading, weight A, count twice; see `occurrences`); its
 * document frequency and the collection's chunk count and mean chunk length (in tokens) are the
 * whole collection's, so filters narrow the results without changing the scores. The chunk count
 * and length come from the ready documents' `chunk_count` and `token_count` (the sum of their
 * chunks'), not from scanning the chunks.
 */
/** Postgres' SQLSTATE for a statement stopped by statement_timeout. */
const QUERY_CANCELED = "57014";

export class RagSearchRepository {
  constructor(
    private readonly db: Database,
    private readonly vectorKind: () => VectorSearchKind,
    /** How long an exact scan may run (statement_timeout) before the search is refused. */
    private readonly exactScanTimeoutMs = 5_000,
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
      lexemes.map((l) => anyLexemeQuery([l])),
    ];
    const filter = scopeFilter(scope, params, "c");
    params.push(limit);
    const rows = await this.db.query<{ id: string; score: number | string }>(
      `WITH terms AS (
         SELECT t.lexeme, t.query FROM unnest($4::text[], $5::tsquery[]) AS t(lexeme, query)),
       matched AS (
         SELECT c.id, c.document_id, c.token_count, c.injection, c.tsv FROM rag_chunks c
          WHERE c.customer_id = $1 AND c.collection_id = $2 AND c.tsv @@ $3::tsquery),
       tf AS (
         SELECT m.id, t.lexeme,
                ${occurrences("m.tsv", "t.query", "{1,1,1,1}")}
                  + ${occurrences("m.tsv", "t.query", "{0,0,0,1}")} AS tf
           FROM matched m CROSS JOIN terms t WHERE m.tsv @@ t.query),
       df AS (SELECT lexeme, count(*)::float8 AS n FROM tf GROUP BY lexeme),
       stats AS (
         SELECT greatest(sum(chunk_count), 1)::float8 AS n,
                greatest(sum(token_count)::float8 / greatest(sum(chunk_count), 1), 1) AS avgdl
           FROM rag_documents WHERE customer_id = $1 AND collection_id = $2 AND status = 'ready')
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
    const timeout = Math.max(1, Math.round(this.exactScanTimeoutMs));
    const rows = await this.db
      .transaction(async (tx) => {
        await tx.query(`SET LOCAL statement_timeout = ${timeout}`);
        return tx.query<{ id: string; score: number | string }>(
          `SELECT c.id, ${exactDotProduct("c.embedding", `$${params.length - 1}`)} AS score ${base}
            ORDER BY score DESC, c.id LIMIT $${params.length}`,
          params,
        );
      })
      .catch((err: unknown) => {
        if (sqlStateOf(err) !== QUERY_CANCELED) throw err;
        throw new GatewayError(
          "service_unavailable",
          `vector search scanned this collection for longer than ${timeout} ms (the database has ` +
            "no pgvector index); use mode keyword, a narrower filter, or a database with pgvector",
        );
      });
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
