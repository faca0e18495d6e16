import type { Database, Queryable } from "./database.js";

/**
 * How vectors are stored and compared, shared by the response cache and RAG chunks. A vector is a
 * `real[]` of unit length (a dot product is the cosine similarity), which every Postgres and
 * PGlite can hold. Where the database offers pgvector, an HNSW index per dimension over
 * `column::vector(d)` (inner-product ops) serves nearest-neighbour queries; elsewhere callers use
 * the exact scan expression (a dot product per stored vector).
 */
export type VectorSearchKind = "pgvector_hnsw" | "exact_scan";

/** Dimensions of a vector as a SQL literal: an integer we produced, never caller text. */
export function vectorDims(v: readonly number[]): number {
  const n = v.length;
  if (!Number.isInteger(n) || n < 1 || n > 16_000) throw new Error("bad embedding dimensions");
  return n;
}

/** Creates pgvector if the database offers it; returns the search in use. */
export async function prepareVectorSearch(db: Database): Promise<VectorSearchKind> {
  try {
    const [row] = await db.query<{ n: number | string }>(
      "SELECT count(*) AS n FROM pg_available_extensions WHERE name = 'vector'",
    );
    if (Number(row?.n ?? 0) > 0) {
      await db.exec("CREATE EXTENSION IF NOT EXISTS vector");
      return "pgvector_hnsw";
    }
  } catch {
    return "exact_scan";
  }
  return "exact_scan";
}

/**
 * The pgvector distance used for ORDER BY (negative inner product: smaller is nearer) between
 * `column` and the SQL parameter `param` (a JSON array text such as JSON.stringify(vector)).
 */
export function pgvectorDistance(column: string, d: number, param: string): string {
  return `(${column}::vector(${d})) <#> (${param}::text)::vector(${d})`;
}

/** The exact-scan similarity: the dot product of `column` with the real[] parameter `param`. */
export function exactDotProduct(column: string, param: string): string {
  return `(SELECT sum(a * b) FROM unnest(${column}, ${param}::real[]) AS t(a, b))`;
}

/**
 * Runs an HNSW query in a transaction that lets pgvector 0.8 keep scanning the index until enough
 * rows pass the query's filter (hnsw.iterative_scan; ignored where the setting does not exist).
 */
export function withIterativeScan<T>(db: Database, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.query("SET LOCAL hnsw.iterative_scan = relaxed_order").catch(() => undefined);
    return fn(tx);
  });
}

/** The HNSW indexes of one table's vector column, created on first use of a dimension. */
export class HnswIndexes {
  private readonly created = new Set<number>();

  /** `table` and `column` are identifiers from our code, never caller text. */
  constructor(
    private readonly db: Database,
    private readonly table: string,
    private readonly column: string,
  ) {}

  async ensure(d: number): Promise<void> {
    if (this.created.has(d)) return;
    await this.db.exec(
      `CREATE INDEX IF NOT EXISTS ${this.table}_hnsw_${d} ON ${this.table}
         USING hnsw ((${this.column}::vector(${d})) vector_ip_ops)
         WHERE array_length(${this.column}, 1) = ${d}`,
    );
    this.created.add(d);
  }
}
