import type { Queryable } from "../store/database.js";
import type { BatchRepository } from "../store/batch-repository.js";
import { FILE_CHUNK_BYTES, type FileRepository } from "../store/file-repository.js";
import { newId } from "../core/ids.js";
import { errorLine } from "./batch-output.js";
import type { BatchRecord } from "./batch-types.js";

export interface FinalizeDeps {
  batches: BatchRepository;
  files: FileRepository;
  owner: string;
}

const PAGE = 1000;

/**
 * Writes the output file (answers with 2xx) and the error file (every other line; for an expired
 * batch also the lines that never ran, with code batch_expired) and moves the batch to its final
 * state, in one transaction: a crash leaves it finalising, and the next worker does it again.
 */
export async function finalizeBatch(
  deps: FinalizeDeps,
  batch: BatchRecord,
  final: "completed" | "expired" | "cancelled",
  now: number,
): Promise<boolean> {
  const { batches, owner } = deps;
  return batches.transaction(async (tx) => {
    const at = new Date(now);
    const output = await writeFile(tx, deps, batch, "output", final, at);
    const errors = await writeFile(tx, deps, batch, "error", final, at);
    const moved = await batches.transition(
      batch.id,
      owner,
      final === "cancelled" ? ["cancelling"] : ["finalizing"],
      final,
      at,
      tx,
    );
    if (!moved) throw new Error(`batch ${batch.id} is no longer held by this worker`);
    await batches.setFiles(tx, batch.id, { outputFileId: output, errorFileId: errors });
    return true;
  });
}

async function writeFile(
  tx: Queryable,
  deps: FinalizeDeps,
  batch: BatchRecord,
  kind: "output" | "error",
  final: "completed" | "expired" | "cancelled",
  at: Date,
): Promise<string | null> {
  const chunks = fileChunks(tx, deps.batches, batch.id, kind, final);
  const first = await chunks.next();
  if (first.done) return null;
  const id = newId("file", 24);
  async function* all() {
    yield first.value as Buffer;
    for await (const c of chunks) yield c;
  }
  await deps.files.insert(
    tx,
    {
      id,
      customerId: batch.customerId,
      purpose: "batch_output",
      filename: `${batch.id}_${kind}.jsonl`,
      createdAt: at,
    },
    all(),
  );
  return id;
}

async function* fileChunks(
  tx: Queryable,
  batches: BatchRepository,
  batchId: string,
  kind: "output" | "error",
  final: "completed" | "expired" | "cancelled",
): AsyncGenerator<Buffer> {
  let pending = "";
  let after = 0;
  for (;;) {
    const page = await batches.linesAfter(batchId, after, PAGE, tx);
    if (page.length === 0) break;
    for (const line of page) {
      after = line.lineNo;
      let text: string | null = null;
      if (line.state === "done" && line.result !== null) {
        if ((line.isError === true) === (kind === "error")) text = line.result;
      } else if (kind === "error" && final === "expired") {
        text = errorLine(line.customId, {
          code: "batch_expired",
          message: "the batch's completion window ended before this request ran",
        });
      }
      if (text === null) continue;
      pending += `${text}\n`;
      if (pending.length >= FILE_CHUNK_BYTES) {
        yield Buffer.from(pending, "utf8");
        pending = "";
      }
    }
  }
  if (pending.length > 0) yield Buffer.from(pending, "utf8");
}
