import test from "ava";
import { execFileSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chainHash, recordDigest } from "../audit-record.js";
import type { ChainedRecord } from "../verify-chain.js";
import type { BundleCheckpoint } from "./bundle-types.js";
import { readBundle, resealDigests, runVerifier, writeBundle } from "./repack-bundle.js";
import { buildChain, checkpointAt, newSigningKey, sourceOf } from "./test-chain.js";
import { writeEvidenceBundle } from "./write-evidence-bundle.js";

const work = mkdtempSync(join(tmpdir(), "evident-tamper-test-"));
test.after.always(() => rmSync(work, { recursive: true, force: true }));

const key = newSigningKey();
const records = buildChain(120, new Set([5]));
const checkpoints = [
  checkpointAt(records[49] as ChainedRecord, key),
  checkpointAt(records[99] as ChainedRecord, key),
];
const original = join(work, "original.tar.gz");

test.before(async () => {
  await writeEvidenceBundle(
    sourceOf(() => records, { public_key_pem: key.publicPem, checkpoints }),
    createWriteStream(original),
  );
});

let n = 0;
/** Opens the original bundle, lets `change` edit its files, and writes the result. */
async function tampered(change: (files: Map<string, Buffer>) => void): Promise<string> {
  const files = await readBundle(original);
  change(files);
  n += 1;
  const path = join(work, `tampered-${n}.tar.gz`);
  await writeBundle(path, files);
  return path;
}

function lines(files: Map<string, Buffer>): ChainedRecord[] {
  return String(files.get("records.jsonl"))
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as ChainedRecord);
}

function setLines(files: Map<string, Buffer>, recs: ChainedRecord[]): void {
  files.set("records.jsonl", Buffer.from(recs.map((r) => `${JSON.stringify(r)}\n`).join("")));
}

function editModel(r: ChainedRecord): ChainedRecord {
  if (r.fields === null) throw new Error("tombstone");
  return { ...r, fields: { ...r.fields, model: "gpt-forged" } };
}

test("the untouched bundle verifies (baseline for the cases below)", async (t) => {
  const { code, report } = await runVerifier(original);
  t.is(code, 0);
  t.true(report.ok);
});

test("an edited record with resealed file digests fails the chain at that seq", async (t) => {
  const path = await tampered((files) => {
    setLines(
      files,
      lines(files).map((r) => (r.seq === 37 ? editModel(r) : r)),
    );
    resealDigests(files);
  });
  const { code, report } = await runVerifier(path);
  t.is(code, 1);
  t.like(report, {
    ok: false,
    files_ok: true,
    chain_ok: false,
    first_broken: { seq: 37, reason: "digest_mismatch" },
  });
});

test("an edited record with the whole chain recomputed after it is caught by the signed checkpoint", async (t) => {
  const path = await tampered((files) => {
    let prev = "";
    const forged = lines(files).map((r) => {
      if (r.seq < 37) return r;
      const edited = r.seq === 37 ? editModel(r) : r;
      const digest = edited.fields === null ? edited.record_digest : recordDigest(edited.fields);
      const prevHash = r.seq === 37 ? r.prev_hash : prev;
      prev = chainHash(prevHash, digest);
      return { ...edited, record_digest: digest, prev_hash: prevHash, hash: prev };
    });
    setLines(files, forged);
    resealDigests(files);
  });
  const { code, report } = await runVerifier(path);
  t.is(code, 1);
  t.like(report, { ok: false, files_ok: true, chain_ok: false, checkpoints_ok: false });
  t.deepEqual(report.first_broken, { seq: 50, reason: "checkpoint_mismatch" });
});

test("a checkpoint moved to a forged hash no longer verifies against the public key", async (t) => {
  const path = await tampered((files) => {
    const cps = JSON.parse(String(files.get("checkpoints.json"))) as BundleCheckpoint[];
    const forged = cps.map((c) => (c.seq === 100 ? { ...c, hash: "f".repeat(64) } : c));
    files.set("checkpoints.json", Buffer.from(JSON.stringify(forged)));
    resealDigests(files);
  });
  const { code, report } = await runVerifier(path);
  t.is(code, 1);
  t.like(report, {
    ok: false,
    files_ok: true,
    chain_ok: true,
    checkpoints_ok: false,
    checkpointed_through: 50,
  });
});

test("a flipped byte in policies.json without resealing is reported for that file", async (t) => {
  const path = await tampered((files) => {
    const data = Buffer.from(files.get("policies.json") ?? "");
    data[data.indexOf("block")] = "B".charCodeAt(0);
    files.set("policies.json", data);
  });
  const { code, report } = await runVerifier(path);
  t.is(code, 1);
  t.like(report, { ok: false, files_ok: false, chain_ok: true });
  t.deepEqual(report.file_errors, [
    { file: "policies.json", reason: "sha256sums_mismatch" },
    { file: "policies.json", reason: "manifest_digest_mismatch" },
  ]);
});

test("a flipped byte inside one record line is reported for records.jsonl and at that seq", async (t) => {
  const path = await tampered((files) => {
    const data = Buffer.from(files.get("records.jsonl") ?? "");
    const line = data.indexOf('"id":"rec_80"');
    data[line + '"id":"rec_'.length] = "9".charCodeAt(0);
    files.set("records.jsonl", data);
  });
  const { code, report } = await runVerifier(path);
  t.is(code, 1);
  t.like(report, {
    ok: false,
    files_ok: false,
    chain_ok: false,
    first_broken: { seq: 80, reason: "digest_mismatch" },
  });
  t.true(
    report.file_errors?.some(
      (e) => e.file === "records.jsonl" && e.reason === "sha256sums_mismatch",
    ),
  );
});

test("a deleted record is a sequence gap at its seq, and the manifest's count no longer matches", async (t) => {
  const path = await tampered((files) => {
    setLines(
      files,
      lines(files).filter((r) => r.seq !== 60),
    );
    resealDigests(files);
  });
  const { report } = await runVerifier(path);
  t.like(report, { ok: false, files_ok: true, chain_ok: false, records: 119, manifest_ok: false });
  t.deepEqual(report.first_broken, { seq: 60, reason: "sequence_gap" });
});

test("two swapped records are a sequence gap at the first of them", async (t) => {
  const path = await tampered((files) => {
    const recs = lines(files);
    [recs[20], recs[21]] = [recs[21] as ChainedRecord, recs[20] as ChainedRecord];
    setLines(files, recs);
    resealDigests(files);
  });
  const { report } = await runVerifier(path);
  t.like(report, { ok: false, chain_ok: false, first_broken: { seq: 21, reason: "sequence_gap" } });
});

test("a file added to the archive that no digest list names is reported", async (t) => {
  const path = await tampered((files) => files.set("extra.txt", Buffer.from("not evidence\n")));
  const { report } = await runVerifier(path);
  t.like(report, { ok: false, files_ok: false, chain_ok: true });
  t.deepEqual(report.file_errors, [
    { file: "extra.txt", reason: "not_in_sha256sums" },
    { file: "extra.txt", reason: "not_in_manifest" },
  ]);
});

test("a missing file is reported", async (t) => {
  const path = await tampered((files) => files.delete("controls.json"));
  const { report } = await runVerifier(path);
  t.like(report, { ok: false, files_ok: false });
  t.true(report.file_errors?.some((e) => e.file === "controls.json" && e.reason === "missing"));
});

test("a file that is not a gzip'd tar fails with an error and exit code 1", async (t) => {
  const path = join(work, "garbage.tar.gz");
  writeFileSync(path, "this is not a bundle");
  const { code, report } = await runVerifier(path);
  t.is(code, 1);
  t.false(report.ok);
  t.is(typeof report.error, "string");
});

test("a bundle extracted and re-packed with GNU tar (./ names) still verifies: the verifier reads any ustar", async (t) => {
  const dir = mkdtempSync(join(work, "gnu-"));
  execFileSync("tar", ["-xzf", original, "-C", dir]);
  const repacked = join(work, "gnu.tar.gz");
  execFileSync("tar", ["-C", dir, "-czf", repacked, "."]);
  const { code, report } = await runVerifier(repacked);
  t.is(code, 0);
  t.like(report, { ok: true, records: 120 });
});
