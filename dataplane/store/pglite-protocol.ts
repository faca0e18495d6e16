/**
 * Messages between the request thread and the thread that owns PGlite (pglite-worker.ts).
 * Everything here crosses a structured clone: plain data, Dates and Uint8Arrays only.
 */
/** A piece of a COPY's data: text format as a string, binary format as bytes. */
export type CopyPiece = string | Uint8Array;

export type PgliteRequest =
  | { id: number; op: "query"; tx?: number; text: string; params: readonly unknown[] }
  | { id: number; op: "exec"; tx?: number; text: string }
  /**
   * A COPY ... FROM '/dev/blob' statement (copyStatement) fed `data`, strings in the text format
   * or bytes in the binary one; with `guard` (no parameters) run first, in one simple-protocol
   * message (one transaction, or the caller's).
   * Replies with rows [{}] when copied, [] when the guard raised GUARD_REFUSED (copy-guard.ts).
   */
  | {
      id: number;
      op: "copy";
      tx?: number;
      text: string;
      data: CopyPiece[];
      guard?: string;
    }
  /**
   * Pieces of the data of the "copy" with the same id, posted ahead of it (no reply): every
   * message stays small. The copy's own `data` follows them.
   */
  | { id: number; op: "stage"; data: CopyPiece[] }
  | { id: number; op: "begin" }
  | { id: number; op: "end"; tx: number; commit: boolean }
  | { id: number; op: "close" };

export interface SerializedDbError {
  message: string;
  /** SQLSTATE and the other fields Postgres reports, when the error came from the database. */
  fields: Record<string, string>;
}

export type PgliteReply =
  | { id: number; ok: true; rows?: unknown[]; tx?: number }
  | { id: number; ok: false; error: SerializedDbError };

export interface PgliteWorkerData {
  dataDir: string | undefined;
  /** Load the pgvector extension (loadable with CREATE EXTENSION vector). */
  vector: boolean;
  /** Print the worker's memory to stderr every this many seconds; 0: never. */
  memoryLogSecs: number;
  /** The worker thread's nice value (PgliteOptions.niceness); 0 leaves it as it is. */
  niceness: number;
}

/** Field names of a Postgres error that callers may read (pg's DatabaseError has the same). */
export const ERROR_FIELDS = [
  "code",
  "detail",
  "hint",
  "constraint",
  "table",
  "column",
  "schema",
  "severity",
] as const;
