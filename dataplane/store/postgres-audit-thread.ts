import { Worker } from "node:worker_threads";
import { dbErrorFrom, type SerializedDbError } from "./serialized-db-error.js";

/** What the request thread posts to the audit thread, and what comes back. */
export interface AuditLinesRequest {
  id: number;
  lines: Uint8Array;
  dedupe: boolean;
}
export type AuditLinesReply =
  | { id: number; ok: true; unreadable: string[] }
  | { id: number; ok: false; error: SerializedDbError };

export interface AuditThreadData {
  connectionString: string;
  connectTimeoutMs: number;
}

/** The worker's file beside this one: .ts under tsx (dev, tests), .js after the build. */
function workerUrl(): URL {
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return new URL(`./postgres-audit-worker${ext}`, import.meta.url);
}

/**
 * The thread that chains and commits audit records into Postgres over a connection of its own
 * (postgres-audit-worker.ts), for Database.appendAuditLines. Started at the first call, and again
 * after it stopped (a crash fails the calls then waiting; the ingester retries them). Holds one
 * connection while running; unreferenced, so it never keeps the process alive.
 */
export class PostgresAuditThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, (reply: AuditLinesReply) => void>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly data: AuditThreadData) {}

  append(lines: Uint8Array, dedupe: boolean): Promise<string[]> {
    if (this.closed) return Promise.reject(new Error("the audit thread is closed"));
    const worker = (this.worker ??= this.start());
    const id = this.nextId++;
    return new Promise<AuditLinesReply>((resolve) => {
      this.pending.set(id, resolve);
      worker.postMessage({ id, lines, dedupe } satisfies AuditLinesRequest);
    }).then((reply) => {
      if (!reply.ok) throw dbErrorFrom(reply.error);
      return reply.unreadable;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private start(): Worker {
    const worker = new Worker(workerUrl(), { workerData: this.data satisfies AuditThreadData });
    worker.unref();
    worker.on("message", (reply: AuditLinesReply) => {
      const resolve = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      resolve?.(reply);
    });
    const stopped = (err: Error) => {
      if (this.worker === worker) this.worker = undefined;
      const error = { message: err.message, fields: {} };
      for (const [id, resolve] of this.pending) resolve({ id, ok: false, error });
      this.pending.clear();
    };
    worker.on("error", stopped);
    worker.on("exit", (code) => stopped(new Error(`the audit thread stopped (exit ${code})`)));
    return worker;
  }
}
