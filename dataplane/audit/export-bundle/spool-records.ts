import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { GatewayError } from "../../core/errors.js";
import { canonicalJson } from "../audit-record.js";
import { verifyChain, type ChainReport, type ChainedRecord } from "../verify-chain.js";
import { RecordTally } from "./record-tally.js";

export interface SpooledRecords {
  sha256: string;
  size: number;
  record_count: number;
  first_seq: number | null;
  last_seq: number | null;
  chain: ChainReport;
  tally: RecordTally;
  /** Record hashes at the requested seqs (the checkpoints'), as they appear in the file. */
  hashesAtCheckpoints: Map<number, string>;
}

export interface SpoolInput {
  customerId: string;
  records: AsyncIterable<ChainedRecord>;
  anchor: { seq: number; hash: string };
  expectedHashes: ReadonlyMap<number, string>;
  checkpointSeqs: ReadonlySet<number>;
}

/**
 * One pass over the records: each is written to `path` as a canonical JSON line, hashed, tallied
 * and handed to verifyChain. Writes wait for the file stream to drain, so only a bounded number of
 * records is ever in memory. A broken chain does not stop the export: verifyChain reports the first
 * break and the remaining records are still written, because they are evidence too.
 */
export async function spoolRecords(path: string, input: SpoolInput): Promise<SpooledRecords> {
  const file = createWriteStream(path, { flags: "wx" });
  let fileError: Error | null = null;
  file.on("error", (err) => (fileError ??= err));
  const hash = createHash("sha256");
  const tally = new RecordTally();
  const hashesAtCheckpoints = new Map<number, string>();
  let size = 0;
  let first: number | null = null;
  let last: number | null = null;
  const source = input.records[Symbol.asyncIterator]();

  const pull = async (): Promise<IteratorResult<ChainedRecord>> => {
    const next = await source.next();
    if (next.done === true) return next;
    const record = next.value;
    if (record.fields !== null && record.fields.customer_id !== input.customerId) {
      throw new GatewayError(
        "internal_error",
        `record seq ${record.seq} belongs to another customer`,
      );
    }
    // The row's columns are for verification only; the bundle carries the chained record.
    const { row: _row, ...chained } = record;
    const line = Buffer.from(`${canonicalJson(chained)}\n`);
    hash.update(line);
    size += line.length;
    tally.add(record);
    first ??= record.seq;
    last = record.seq;
    if (input.checkpointSeqs.has(record.seq)) hashesAtCheckpoints.set(record.seq, record.hash);
    if (fileError !== null) throw fileError;
    if (!file.write(line)) await once(file, "drain");
    return next;
  };

  try {
    // No return(): verifyChain stopping at a break must not close the source; we drain it below.
    const chain = await verifyChain(
      { [Symbol.asyncIterator]: () => ({ next: pull }) },
      input.anchor,
      input.expectedHashes,
    );
    while ((await pull()).done !== true);
    if (fileError !== null) throw fileError;
    const closed = once(file, "close");
    file.end();
    await closed;
    return {
      sha256: hash.digest("hex"),
      size,
      record_count: tally.records,
      first_seq: first,
      last_seq: last,
      chain,
      tally,
      hashesAtCheckpoints,
    };
  } catch (err) {
    file.destroy();
    await source.return?.();
    throw err;
  }
}
