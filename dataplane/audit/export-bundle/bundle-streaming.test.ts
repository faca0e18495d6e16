import test from "ava";
import { createWriteStream, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalJson, GENESIS_HASH } from "../audit-record.js";
import type { ChainedRecord } from "../verify-chain.js";
import { runVerifier } from "./repack-bundle.js";
import { chainOf, newSigningKey, seqFields, sourceOf } from "./test-chain.js";
import { writeEvidenceBundle } from "./write-evidence-bundle.js";

const work = mkdtempSync(join(tmpdir(), "evident-stream-test-"));
test.after.always(() => rmSync(work, { recursive: true, force: true }));

const COUNT = 50_000;
/** Bytes handed to the writer that may not have reached the spool file yet (stream buffer + slack). */
const MAX_LAG_BYTES = 1024 * 1024;

test("50,000 records are streamed to disk as they are read, never gathered in memory, and verify", async (t) => {
  const key = newSigningKey();
  const spoolRoot = mkdtempSync(join(work, "spool-"));
  let yieldedBytes = 0;
  let maxLag = 0;
  let probes = 0;

  // The source generates records on demand (nothing holds all of them) and, every 1,000 records,
  // compares what it has handed out with what the writer has already put on disk.
  async function* records(): AsyncGenerator<ChainedRecord> {
    for (const record of chainOf(seqFields(1, COUNT), GENESIS_HASH)) {
      if (record.seq % 1000 === 0) {
        const [workDir] = readdirSync(spoolRoot);
        const onDisk = statSync(join(spoolRoot, workDir ?? "", "records.jsonl")).size;
        maxLag = Math.max(maxLag, yieldedBytes - onDisk);
        probes += 1;
      }
      yieldedBytes += Buffer.byteLength(canonicalJson(record)) + 1;
      yield record;
    }
  }

  const source = sourceOf(records, { public_key_pem: key.publicPem });
  const path = join(work, "large.tar.gz");
  const summary = await writeEvidenceBundle(source, createWriteStream(path), { tmpDir: spoolRoot });

  t.log(`writer lag at most ${maxLag} bytes; ${yieldedBytes} bytes of records`);
  t.is(probes, COUNT / 1000);
  t.true(yieldedBytes > 20 * MAX_LAG_BYTES, `records total ${yieldedBytes} bytes`);
  t.true(maxLag <= MAX_LAG_BYTES, `the writer fell ${maxLag} bytes behind the source`);
  t.like(summary, {
    record_count: COUNT,
    first_seq: 1,
    last_seq: COUNT,
    chain: { ok: true, checked: COUNT },
  });
  t.deepEqual(readdirSync(spoolRoot), [], "the temporary work folder is removed");

  const { code, report } = await runVerifier(path);
  t.is(code, 0);
  t.like(report, { ok: true, records: COUNT, first_seq: 1, last_seq: COUNT });
});
