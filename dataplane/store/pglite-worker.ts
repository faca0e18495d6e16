import { mkdir } from "node:fs/promises";
import { parentPort, workerData } from "node:worker_threads";
import { niceCurrentThread } from "./thread-priority.js";
import { PGlite, types, type Transaction } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import {
  type CopyPiece,
  ERROR_FIELDS,
  type PgliteReply,
  type PgliteRequest,
  type PgliteWorkerData,
  type SerializedDbError,
} from "./pglite-protocol.js";
import { startMemoryLog } from "./pglite-memory-log.js";
import { GUARD_REFUSED } from "./copy-guard.js";
import { sqlStateOf } from "./database.js";

/**
 * The thread that owns the embedded database. PGlite's WebAssembly Postgres runs here, so its work
 * never holds up the event loop that serves requests. Requests are answered in any order; PGlite
 * itself serialises them (a query outside a transaction waits for an open transaction to end).
 */
const port = parentPort;
if (!port) throw new Error("pglite-worker must run as a worker thread");
const { dataDir, vector: withVector, memoryLogSecs, niceness } = workerData as PgliteWorkerData;
if (niceness > 0) niceCurrentThread(niceness);

const parsers = {
  [types.INT8]: (v: string) => Number(v),
  [types.NUMERIC]: (v: string) => Number(v),
};

/**
 * Postgres sizes its buffer cache at 128 MB by default, and PGlite touches all of it inside its
 * WebAssembly memory: about 200 MiB of resident memory for a cache the embedded store does not
 * need (pages it evicts are read back from the OS page cache; docs/benchmarks.md, "Memory and the
 * embedded store"). 16 MB keeps the gateway's footprint near a bare proxy's.
 */
const SHARED_BUFFERS = "16MB";

if (dataDir !== undefined) await mkdir(dataDir, { recursive: true });
const db = await PGlite.create(dataDir === undefined ? undefined : `file://${dataDir}`, {
  parsers,
  extensions: withVector ? { vector } : {},
  startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${SHARED_BUFFERS}`],
});

if (memoryLogSecs > 0) startMemoryLog(db, memoryLogSecs);

interface OpenTransaction {
  tx: Transaction;
  finish: (commit: boolean) => void;
  done: Promise<void>;
}
const transactions = new Map<number, OpenTransaction>();
let nextTx = 1;

function serialize(err: unknown): SerializedDbError {
  const fields: Record<string, string> = {};
  if (err !== null && typeof err === "object") {
    for (const name of ERROR_FIELDS) {
      const value = (err as Record<string, unknown>)[name];
      if (typeof value === "string") fields[name] = value;
    }
  }
  return { message: err instanceof Error ? err.message : String(err), fields };
}

function target(tx: number | undefined): Pick<Transaction, "query" | "exec"> {
  if (tx === undefined) return db;
  const open = transactions.get(tx);
  if (!open) throw new Error("transaction is no longer open");
  return open.tx;
}

const ROLLBACK = "rollback requested";

/** Opens a transaction that stays open until an "end" request for it arrives. */
function begin(): Promise<number> {
  return new Promise((resolve, reject) => {
    const id = nextTx++;
    let finish: (commit: boolean) => void = () => undefined;
    const done = db
      .transaction(
        (tx) =>
          new Promise<void>((committed, aborted) => {
            finish = (commit) => (commit ? committed() : aborted(new Error(ROLLBACK)));
            transactions.set(id, { tx, finish: (commit) => finish(commit), done });
            resolve(id);
          }),
      )
      .then(() => undefined)
      .finally(() => transactions.delete(id));
    // Failing to begin rejects begin(); a failure after that is reported to whoever ends it.
    done.catch((err: unknown) => reject(err instanceof Error ? err : new Error(String(err))));
  });
}

async function end(tx: number, commit: boolean): Promise<void> {
  const open = transactions.get(tx);
  if (!open) throw new Error("transaction is no longer open");
  open.finish(commit);
  try {
    await open.done;
  } catch (err) {
    if (commit || !(err instanceof Error && err.message === ROLLBACK)) throw err;
  }
}

/**
 * COPY's rows after the guard, both in one simple-protocol message: one trip into Postgres, one
 * implicit transaction (or the caller's open one), so a refused guard or a failing COPY leaves
 * nothing behind. About 0.2-0.4 ms less per batch than a transaction of two extended-protocol
 * queries (docs/benchmarks.md, "Issue 13, fourteenth pass"). True when copied.
 */
async function copy(
  q: Pick<Transaction, "exec">,
  req: Extract<PgliteRequest, { op: "copy" }>,
): Promise<boolean> {
  try {
    await q.exec(req.guard === undefined ? req.text : `${req.guard};\n${req.text}`, {
      blob: new Blob(req.data),
    });
    return true;
  } catch (err) {
    if (req.guard !== undefined && sqlStateOf(err) === GUARD_REFUSED) return false;
    throw err;
  }
}

async function handle(req: Exclude<PgliteRequest, { op: "stage" }>): Promise<PgliteReply> {
  switch (req.op) {
    case "query": {
      const res = await target(req.tx).query(req.text, req.params as unknown[]);
      return { id: req.id, ok: true, rows: res.rows };
    }
    case "exec":
      await target(req.tx).exec(req.text);
      return { id: req.id, ok: true };
    case "copy": {
      const copied = await copy(target(req.tx), req);
      return { id: req.id, ok: true, rows: copied ? [{}] : [] };
    }
    case "begin":
      return { id: req.id, ok: true, tx: await begin() };
    case "end":
      await end(req.tx, req.commit);
      return { id: req.id, ok: true };
    case "close":
      await db.close();
      return { id: req.id, ok: true };
  }
}

/** Data pieces posted ahead of their "copy" (op "stage"), by its id. */
const staged = new Map<number, CopyPiece[]>();

port.on("message", (req: PgliteRequest) => {
  if (req.op === "stage") {
    const pieces = staged.get(req.id);
    if (pieces) pieces.push(...req.data);
    else staged.set(req.id, [...req.data]);
    return;
  }
  const pieces = staged.get(req.id);
  staged.delete(req.id);
  const whole = pieces && req.op === "copy" ? { ...req, data: [...pieces, ...req.data] } : req;
  handle(whole).then(
    (reply) => port.postMessage(reply),
    (err: unknown) => port.postMessage({ id: req.id, ok: false, error: serialize(err) }),
  );
});
port.postMessage({ id: 0, ok: true });
