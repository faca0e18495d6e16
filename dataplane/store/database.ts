/**
 * One interface over real Postgres (pg) and embedded Postgres (PGlite). Repositories see only this,
 * so the same SQL runs on both.
 */
export type SqlParam =
  string | number | boolean | null | Date | Buffer | readonly string[] | object;

export interface Queryable {
  query<Row extends object>(text: string, params?: readonly SqlParam[]): Promise<Row[]>;
  /** Runs one or more statements without parameters (migrations). */
  exec(text: string): Promise<void>;
  /**
   * Loads rows into `table` with COPY, from `rows` in Postgres' text format (a line per row,
   * columns in `columns` order separated by tabs, `\N` for null, backslash escapes) or its
   * binary format, in pieces (no string or buffer of a whole batch; see CopyData). With `guard`,
   * a statement without parameters (copy-guard.ts) runs first, both in one transaction (the
   * caller's, when called on one); if it raises GUARD_REFUSED nothing is copied and the answer is
   * false (a caller's transaction is then aborted). True when the rows were copied.
   * Both stores offer it cheaply: PGlite in one message to its thread, Postgres in one round trip
   * (the guard, the COPY and its data together: postgres-copy.ts); callers fall back to INSERT
   * where it is undefined. `table` and `columns` go into the statement as they are: constants
   * only.
   */
  copyRows?(
    table: string,
    columns: readonly string[],
    rows: CopyData,
    guard?: string,
  ): Promise<boolean>;
}

/**
 * A COPY's data in pieces: text format (whole rows per piece, CopyRowPieces) or binary format
 * (CopyBinaryPieces: header, rows and trailer, cut anywhere). `handOver`: every binary piece has
 * an ArrayBuffer of its own that nobody reads after the copy, so the embedded store moves the
 * buffers to its thread rather than copying them (the pieces are empty afterwards).
 */
export type CopyData =
  | { format: "text"; pieces: readonly string[] }
  | { format: "binary"; pieces: readonly Uint8Array[]; handOver?: boolean };

/**
 * The COPY statement that loads `columns` of `table` from `source` in `format`: Postgres reads
 * the data from the client (STDIN), PGlite from the Blob its worker makes of the pieces.
 */
export function copyStatement(
  table: string,
  columns: readonly string[],
  format: CopyData["format"],
  source: "STDIN" | "'/dev/blob'",
): string {
  const options = format === "binary" ? " WITH (FORMAT binary)" : "";
  return `COPY ${table} (${columns.join(", ")}) FROM ${source}${options}`;
}

export interface Database extends Queryable {
  readonly kind: "postgres" | "pglite";
  /** Runs fn in one transaction on one connection; rolls back if fn throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Runs fn on one dedicated connection (session-level locks live as long as fn). */
  withSession<T>(fn: (session: Queryable) => Promise<T>): Promise<T>;
  /** Cheap reachability check. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** The SQLSTATE of a store error (Postgres' and PGlite's alike), if it has one. */
export function sqlStateOf(err: unknown): string | undefined {
  return typeof err === "object" && err !== null && "code" in err && typeof err.code === "string"
    ? err.code
    : undefined;
}
