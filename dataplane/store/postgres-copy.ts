import pg from "pg";
import { GUARD_REFUSED } from "./copy-guard.js";
import { type CopyData, copyStatement, sqlStateOf } from "./database.js";

/** What a guarded COPY needs of pg's Connection (it has them; its typings list only `query`). */
interface CopyConnection {
  query(text: string): void;
  sendCopyFromChunk(chunk: Buffer): void;
  endCopyFrom(): void;
}

const isCopyConnection = (connection: unknown): connection is CopyConnection =>
  typeof connection === "object" &&
  connection !== null &&
  ["query", "sendCopyFromChunk", "endCopyFrom"].every(
    (method) => typeof (connection as Record<string, unknown>)[method] === "function",
  );

/**
 * One simple-protocol Query holding the guard and the COPY, sent with the COPY's data right behind
 * it: one round trip, and one implicit transaction, so a refused guard or a failing COPY leaves
 * nothing behind (as the embedded store's worker does: pglite-worker.ts). If the guard raises,
 * Postgres skips the rest of the Query and drops the CopyData and CopyDone that follow, as the
 * protocol says it does for a COPY that failed (postgres.c ignores them outside copy mode).
 * pg-copy-streams waits for the server's CopyInResponse first (a second round trip) and cannot
 * take a statement ahead of the COPY (it has no handler for the guard's row), hence this.
 * A pg Submittable: pg's client hands it the replies to its Query until ReadyForQuery.
 */
class GuardedCopyQuery implements pg.Submittable {
  readonly done: Promise<void>;
  private settle: { resolve: () => void; reject: (err: unknown) => void } | undefined;

  constructor(
    private readonly text: string,
    private readonly rows: CopyData,
  ) {
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
  }

  /** Sends the Query and its data; an error returned here pg hands back to handleError. */
  submit(connection: pg.Connection): Error | undefined {
    if (!isCopyConnection(connection)) {
      return new Error("this pg version's connection cannot send COPY data");
    }
    connection.query(this.text);
    for (const piece of this.rows.pieces)
      connection.sendCopyFromChunk(
        typeof piece === "string"
          ? Buffer.from(piece, "utf8")
          : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength),
      );
    connection.endCopyFrom();
    return undefined;
  }

  // The guard's row and the statements' completions carry nothing needed here.
  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  /** The data went out with the Query; nothing more to send. */
  handleCopyInResponse(): void {}

  handleError(err: unknown): void {
    this.settle?.reject(err);
  }

  handleReadyForQuery(): void {
    this.settle?.resolve();
  }
}

/**
 * Queryable.copyRows on a pg client: the guard and the COPY in one Query, one round trip
 * (GuardedCopyQuery). False when the guard raised GUARD_REFUSED: nothing copied, and the
 * connection idle again, or, inside the caller's transaction, that transaction aborted (as a
 * failing COPY aborts it).
 */
export async function copyRowsOnClient(
  client: pg.ClientBase,
  table: string,
  columns: readonly string[],
  rows: CopyData,
  guard: string | undefined,
): Promise<boolean> {
  const copy = copyStatement(table, columns, rows.format, "STDIN");
  const query = new GuardedCopyQuery(guard === undefined ? copy : `${guard};\n${copy}`, rows);
  client.query(query);
  try {
    await query.done;
    return true;
  } catch (err) {
    if (guard !== undefined && sqlStateOf(err) === GUARD_REFUSED) return false;
    throw err;
  }
}
