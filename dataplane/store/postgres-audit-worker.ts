import { parentPort, workerData } from "node:worker_threads";
import { appendAuditLines } from "./audit-line-append.js";
import { AuditRepository } from "./audit-repository.js";
import type {
  AuditLinesReply,
  AuditLinesRequest,
  AuditThreadData,
} from "./postgres-audit-thread.js";
import { openPostgres } from "./postgres-database.js";
import { serializeDbError } from "./serialized-db-error.js";

/**
 * The thread that moves audit records from the local log into Postgres (postgres-audit-thread.ts):
 * it parses the log's lines, makes the records storable, chains them (canonical JSON, SHA-256)
 * and commits them over one connection of its own. The ingester sends one batch at a time.
 */
const port = parentPort;
if (!port) throw new Error("postgres-audit-worker must run as a worker thread");
const { connectionString, connectTimeoutMs } = workerData as AuditThreadData;

// A lost idle connection is replaced at the next batch; the pool reports it here, not thrown.
const db = openPostgres({ connectionString, max: 1, connectTimeoutMs, onIdleError: () => {} });
const repo = new AuditRepository(db);

port.on("message", (req: AuditLinesRequest) => {
  appendAuditLines(db, repo, req.lines, req.dedupe).then(
    (unreadable) =>
      port.postMessage({ id: req.id, ok: true, unreadable } satisfies AuditLinesReply),
    (err: unknown) =>
      port.postMessage({
        id: req.id,
        ok: false,
        error: serializeDbError(err),
      } satisfies AuditLinesReply),
  );
});
