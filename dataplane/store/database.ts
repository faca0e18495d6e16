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
