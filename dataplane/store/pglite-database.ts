import { existsSync } from "node:fs";
import path from "node:path";
import { copyStatement, type Database, type Queryable, type SqlParam } from "./database.js";
import {
  type CopyPiece,
  type PgliteReply,
  type PgliteRequest,
  type PgliteWorkerData,
  type SerializedDbError,
} from "./pglite-protocol.js";
import { startWorkerWithYoungGeneration } from "./worker-young-generation.js";

/** Distributes Omit over the request union, so each variant keeps its own fields. */
type Unsent<T> = T extends unknown ? Omit<T, "id"> : never;

/** The worker's file beside this one: .ts under tsx (dev, tests), .js after the build. */
function workerUrl(): URL {
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return new URL(`./pglite-worker${ext}`, import.meta.url);
}

/**
 * The worker's young generation (2 x 4 MiB semi-spaces): what it allocates per query (messages,
 * PGlite's wire buffers, result rows) dies young, and PGlite's own data lives in its WebAssembly
 * memory. Left to the process's --max-semi-space-size=32 it kept 64 MiB resident for about 20 MiB
 * of live heap (docs/benchmarks.md, "Issue 13, third pass: the embedded store's memory").
 */
const WORKER_YOUNG_GENERATION_MB = 12;

export interface PgliteOptions {
  /** Load the pgvector extension (default true). */
  vector?: boolean;
  /** Diagnostic: log the worker's memory every this many seconds (config PGLITE_MEMORY_LOG_SECS). */
  memoryLogSecs?: number;
  /**
   * The store thread's nice value (Linux; default 0). Above 0, the event loop that serves requests
   * gets a core first when both want one: for when the store is background work to the replies.
   */
  niceness?: number;
}

function toError(error: SerializedDbError): Error {
  return Object.assign(new Error(error.message), error.fields);
}

/**
 * Embedded Postgres (PGlite, WebAssembly) on disk in dataDir, or in memory when dataDir is
 * undefined. PGlite runs in its own worker thread (pglite-worker.ts), so its CPU time never blocks
 * the event loop that serves requests; this side only posts messages. One connection: PGlite
 * serialises calls, and a query outside a transaction waits for an open transaction to end.
 * Like the in-process PGlite before it, an open database keeps the process alive until closed.
 * The pgvector extension is loadable (the response cache creates it when it first needs it);
 * `vector: false` leaves it out.
 * A directory without a database yet is initialised (initdb) by a first worker that then exits:
 * a long-lived worker would keep initdb's own WebAssembly instance and memory (its heap sees too
 * little allocation to collect them); a first start measured 640-660 MiB RSS that way, 320-360
 * MiB with the throwaway worker (docs/benchmarks.md, "Memory and the embedded store").
 */
export async function openPglite(
  dataDir: string | undefined,
  options: PgliteOptions = {},
): Promise<Database> {
  if (dataDir !== undefined && !existsSync(path.join(dataDir, "PG_VERSION"))) {
    await (await startWorker(dataDir, options)).close();
  }
  return startWorker(dataDir, options);
}

async function startWorker(dataDir: string | undefined, options: PgliteOptions): Promise<Database> {
  const worker = startWorkerWithYoungGeneration(
    workerUrl(),
    {
      workerData: {
        dataDir,
        vector: options.vector !== false,
        memoryLogSecs: options.memoryLogSecs ?? 0,
        niceness: options.niceness ?? 0,
      } satisfies PgliteWorkerData,
    },
    WORKER_YOUNG_GENERATION_MB,
  );
  const pending = new Map<
    number,
    { resolve: (r: PgliteReply) => void; reject: (e: Error) => void }
  >();
  let nextId = 1;
  let dead: Error | undefined;

  const failAll = (err: Error) => {
    dead ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on("error", failAll);
  worker.on("exit", (code) => failAll(new Error(`embedded database stopped (exit ${code})`)));

  const ready = new Promise<PgliteReply>((resolve, reject) => pending.set(0, { resolve, reject }));
  worker.on("message", (reply: PgliteReply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (reply.ok) p.resolve(reply);
    else p.reject(toError(reply.error));
  });
  await ready;

  /**
   * Posts `req`; `staged`: pieces of a COPY's data, each posted first in a message of its own;
   * `transfer`: buffers moved to the worker with `req` instead of copied into it.
   */
  function send(
    req: Unsent<PgliteRequest>,
    staged: readonly CopyPiece[] = [],
    transfer: readonly ArrayBuffer[] = [],
  ): Promise<PgliteReply> {
    if (dead) return Promise.reject(dead);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      for (const piece of staged) worker.postMessage({ op: "stage", id, data: [piece] });
      worker.postMessage({ ...req, id }, transfer);
    });
  }

  const on = (tx: number | undefined): Queryable => ({
    async query<Row extends object>(text: string, params: readonly SqlParam[] = []) {
      const reply = await send({ op: "query", tx, text, params });
      return (reply.ok ? reply.rows : []) as Row[];
    },
    async exec(text: string) {
      await send({ op: "exec", tx, text });
    },
    async copyRows(table, columns, rows, guard) {
      const text = copyStatement(table, columns, rows.format, "'/dev/blob'");
      const pieces: readonly CopyPiece[] = rows.pieces;
      let reply: PgliteReply;
      if (rows.format === "binary" && rows.handOver === true) {
        // Buffers of their own: moved to the worker in one message, nothing serialised. A 64 KiB
        // piece copied into a message and out of it took 73-85 us of CPU of the two threads,
        // moved 18-20 (docs/benchmarks.md, "Issue 13, twenty-sixth pass").
        const buffers = new Set(rows.pieces.map((piece) => piece.buffer as ArrayBuffer));
        reply = await send(
          { op: "copy", tx, text, data: [...rows.pieces], guard },
          [],
          [...buffers],
        );
      } else {
        // One piece a message: a message's serialised form (up to 64 KB a piece) stays under
        // glibc's mmap threshold (the start script's 128 KiB); one message of a whole batch
        // (150-500 KB) was mapped, faulted in page by page and unmapped each time
        // (docs/benchmarks.md, fourteenth pass).
        reply = await send(
          { op: "copy", tx, text, data: pieces.slice(-1), guard },
          pieces.slice(0, -1),
        );
      }
      return reply.ok && reply.rows?.length === 1;
    },
  });
  const direct = on(undefined);

  return {
    kind: "pglite",
    query: direct.query,
    exec: direct.exec,
    copyRows: direct.copyRows,
    async transaction(fn) {
      const begun = await send({ op: "begin" });
      const tx = begun.ok ? begun.tx : undefined;
      if (tx === undefined) throw new Error("embedded database did not open a transaction");
      let result;
      try {
        result = await fn(on(tx));
      } catch (err) {
        await send({ op: "end", tx, commit: false }).catch(() => undefined);
        throw err;
      }
      await send({ op: "end", tx, commit: true });
      return result;
    },
    withSession: (fn) => fn(direct),
    async ping() {
      try {
        await direct.query("SELECT 1");
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (dead) return;
      await send({ op: "close" });
      dead = new Error("embedded database is closed");
      await worker.terminate();
    },
  };
}
