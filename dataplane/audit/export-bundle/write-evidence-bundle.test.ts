import test from "ava";
import { execFileSync } from "node:child_process";
import { createHash, createPublicKey, generateKeyPairSync } from "node:crypto";
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { Writable } from "node:stream";
import { join } from "node:path";
import { GatewayError } from "../../core/errors.js";
import type { ChainedRecord } from "../verify-chain.js";
import type { BundleSummary, EvidenceBundleSource } from "./bundle-types.js";
import { readBundle, runVerifier } from "./repack-bundle.js";
import {
  buildChain,
  checkpointAt,
  CUSTOMER,
  newSigningKey,
  sourceOf,
  chainOf,
  seqFields,
} from "./test-chain.js";
import { writeEvidenceBundle } from "./write-evidence-bundle.js";

const work = mkdtempSync(join(tmpdir(), "evident-bundle-test-"));
test.after.always(() => rmSync(work, { recursive: true, force: true }));
let n = 0;

async function bundle(
  source: EvidenceBundleSource,
  tmpDir?: string,
): Promise<{ path: string; summary: BundleSummary }> {
  n += 1;
  const path = join(work, `bundle-${n}.tar.gz`);
  const summary = await writeEvidenceBundle(
    source,
    createWriteStream(path),
    tmpDir === undefined ? {} : { tmpDir },
  );
  return { path, summary };
}

const key = newSigningKey();
const records = buildChain(120, new Set([5, 6]));
const at = (seq: number): ChainedRecord => {
  const r = records[seq - 1];
  if (r === undefined) throw new Error(`no record ${seq}`);
  return r;
};
const checkpoints = [checkpointAt(at(50), key), checkpointAt(at(100), key)];

test("an export of a seeded chain round-trips: the independent verifier checks digests, chain and checkpoints", async (t) => {
  const { path, summary } = await bundle(
    sourceOf(() => records, { public_key_pem: key.publicPem, checkpoints }),
  );
  const bytes = readFileSync(path);
  t.is(summary.sha256, createHash("sha256").update(bytes).digest("hex"));
  t.is(summary.size, bytes.length);
  t.like(summary, {
    record_count: 120,
    first_seq: 1,
    last_seq: 120,
    chain: { ok: true, checked: 120 },
  });

  const { code, report } = await runVerifier(path);
  t.is(code, 0);
  t.like(report, {
    ok: true,
    files_ok: true,
    chain_ok: true,
    records: 120,
    first_broken: null,
    checkpoints_ok: true,
  });
  t.is(report.checkpointed_through, 100);
  const der = createPublicKey(key.publicPem).export({ type: "spki", format: "der" });
  t.is(report.public_key_sha256, createHash("sha256").update(der).digest("hex"));
});

test("the bundle extracts with tar and its SHA256SUMS checks with sha256sum -c", async (t) => {
  const { path } = await bundle(
    sourceOf(() => records, { public_key_pem: key.publicPem, checkpoints }),
  );
  const dir = mkdtempSync(join(work, "extract-"));
  execFileSync("tar", ["-xzf", path, "-C", dir]);
  t.deepEqual(readdirSync(dir).sort(), [
    "SHA256SUMS",
    "checkpoints.json",
    "controls.json",
    "manifest.json",
    "policies.json",
    "public-key.pem",
    "records.jsonl",
  ]);
  const out = execFileSync("sha256sum", ["-c", "SHA256SUMS"], { cwd: dir, encoding: "utf8" });
  t.is(out.trim().split("\n").length, 6);
  t.is(readFileSync(join(dir, "records.jsonl"), "utf8").trimEnd().split("\n").length, 120);
});

test("the manifest names customer, range, kind, generator, counts, anchor, verification and every file's digest", async (t) => {
  const { path } = await bundle(
    sourceOf(() => records, { public_key_pem: key.publicPem, checkpoints }),
  );
  const files = await readBundle(path);
  const manifest = JSON.parse(String(files.get("manifest.json"))) as Record<string, unknown>;
  t.like(manifest, {
    customer_id: CUSTOMER,
    kind: "hipaa",
    range: { from: "2026-01-01T00:00:00.000Z", to: "2026-02-01T00:00:00.000Z" },
    generator: { name: "evident", version: "0.1.0" },
    record_count: 120,
    first_seq: 1,
    last_seq: 120,
    anchor: { seq: 0, attested_by: "genesis" },
    verification: {
      ok: true,
      checkpoints_ok: true,
      checkpointed_through: 100,
      chain: { ok: true },
    },
  });
  const described = manifest.files as Record<string, { sha256: string }>;
  t.deepEqual(Object.keys(described).sort(), [
    "checkpoints.json",
    "controls.json",
    "policies.json",
    "public-key.pem",
    "records.jsonl",
  ]);
  for (const [name, { sha256 }] of Object.entries(described)) {
    t.is(
      sha256,
      createHash("sha256")
        .update(files.get(name) ?? "")
        .digest("hex"),
      name,
    );
  }
  t.deepEqual(JSON.parse(String(files.get("checkpoints.json"))), checkpoints);
  t.is(String(files.get("public-key.pem")), key.publicPem);
});

test("controls.json maps HIPAA controls to the evidence with counts from this export", async (t) => {
  const { path } = await bundle(
    sourceOf(() => records, { public_key_pem: key.publicPem, checkpoints }),
  );
  const controls = JSON.parse(String((await readBundle(path)).get("controls.json"))) as {
    controls: { id: string; evidence: { file: string }[]; counts: Record<string, unknown> }[];
  };
  const byId = new Map(controls.controls.map((c) => [c.id, c]));
  t.deepEqual([...byId.keys()], ["164.312(b)", "164.312(c)(1)", "164.316(b)(2)"]);
  // 120 records: seq 5 and 6 are tombstones; every 10th is a management record.
  t.like(byId.get("164.312(b)")?.counts, { records: 120, management: 12, inference: 106 });
  t.like(byId.get("164.312(c)(1)")?.counts, {
    records_verified: 120,
    chain_ok: true,
    checkpoints: 2,
    checkpointed_through: 100,
  });
  t.like(byId.get("164.316(b)(2)")?.counts, { tombstones: 2 });
  t.true(byId.get("164.312(c)(1)")?.evidence.some((e) => e.file === "checkpoints.json"));
});

test("controls.json maps SOC 2 CC6.1, CC6.6, CC7.2, CC7.3 and CC8.1 for a soc2 export", async (t) => {
  const source = sourceOf(() => records, { public_key_pem: key.publicPem, checkpoints });
  source.meta.kind = "soc2";
  const { path } = await bundle(source);
  const controls = JSON.parse(String((await readBundle(path)).get("controls.json"))) as {
    controls: { id: string; counts: Record<string, unknown> }[];
  };
  t.deepEqual(
    controls.controls.map((c) => c.id),
    ["CC6.1", "CC6.6", "CC7.2", "CC7.3", "CC8.1"],
  );
  // Inference records whose seq is a multiple of 7 (and not of 10, and not 5/6) were blocked by the PII check.
  const blocked = [7, 14, 21, 28, 35, 42, 49, 56, 63, 77, 84, 91, 98, 105, 112, 119].length;
  t.like(controls.controls[1]?.counts, { guardrail_blocked: blocked, inference: 106 });
  t.like(controls.controls[4]?.counts, { management: 12, changes: 12 });
});

test("a range that starts mid-chain verifies from its checkpointed anchor", async (t) => {
  const tail = records.slice(50);
  const source = sourceOf(() => tail, {
    public_key_pem: key.publicPem,
    checkpoints,
    anchor: { seq: 50, hash: at(50).hash },
  });
  const { path, summary } = await bundle(source);
  t.like(summary, { record_count: 70, first_seq: 51, last_seq: 120, chain: { ok: true } });
  const { code, report } = await runVerifier(path);
  t.is(code, 0);
  t.like(report, {
    ok: true,
    records: 70,
    checkpoints_ok: true,
    anchor: { seq: 50, attested: true },
  });
});

test("a chain already broken in the store is still exported, and both sides report where it breaks", async (t) => {
  const edited = records.map((r) =>
    r.seq === 30 && r.fields !== null ? { ...r, fields: { ...r.fields, model: "other" } } : r,
  );
  const { path, summary } = await bundle(
    sourceOf(() => edited, { public_key_pem: key.publicPem, checkpoints }),
  );
  t.is(summary.record_count, 120);
  t.deepEqual(summary.chain.first_broken, { seq: 30, reason: "digest_mismatch" });
  t.false(summary.verification.ok);
  const { code, report } = await runVerifier(path);
  t.is(code, 1);
  t.like(report, {
    ok: false,
    files_ok: true,
    chain_ok: false,
    records: 120,
    first_broken: { seq: 30, reason: "digest_mismatch" },
  });
});

test("a record of another customer fails the export and leaves no temporary files", async (t) => {
  const tmp = mkdtempSync(join(work, "tmp-"));
  const foreign = [...chainOf(seqFields(1, 3, "cust_other"))];
  const error = await t.throwsAsync(
    bundle(
      sourceOf(() => foreign, { public_key_pem: key.publicPem }),
      tmp,
    ),
  );
  t.true(error instanceof GatewayError);
  t.deepEqual(readdirSync(tmp), []);
});

test("a source that fails mid-stream fails the export, closes the output and leaves no temporary files", async (t) => {
  const tmp = mkdtempSync(join(work, "tmp-"));
  async function* failing(): AsyncGenerator<ChainedRecord> {
    yield at(1);
    yield at(2);
    throw new Error("database went away");
  }
  const out = createWriteStream(join(work, "partial.tar.gz"));
  const source = sourceOf(failing, { public_key_pem: key.publicPem });
  await t.throwsAsync(writeEvidenceBundle(source, out, { tmpDir: tmp }), {
    message: "database went away",
  });
  t.true(out.destroyed);
  t.deepEqual(readdirSync(tmp), []);
});

test("a checkpoint key that is not Ed25519 is refused before anything is written", async (t) => {
  const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 })
    .publicKey.export({ type: "spki", format: "pem" })
    .toString();
  const error = await t.throwsAsync(bundle(sourceOf(() => records, { public_key_pem: rsa })));
  t.true(error instanceof GatewayError);
});

test("an empty range gives a valid bundle with zero records", async (t) => {
  const { path, summary } = await bundle(sourceOf(() => [], { public_key_pem: key.publicPem }));
  t.like(summary, { record_count: 0, first_seq: null, last_seq: null, chain: { ok: true } });
  const { code, report } = await runVerifier(path);
  t.is(code, 0);
  t.like(report, { ok: true, records: 0 });
});

test("an output that fails mid-write fails the export and leaves no temporary files", async (t) => {
  const tmp = mkdtempSync(join(work, "tmp-"));
  let received = 0;
  const failingOut = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      callback(received > 1024 ? new Error("disk full") : null);
    },
  });
  const source = sourceOf(() => records, { public_key_pem: key.publicPem, checkpoints });
  await t.throwsAsync(writeEvidenceBundle(source, failingOut, { tmpDir: tmp }), {
    message: "disk full",
  });
  t.deepEqual(readdirSync(tmp), []);
});

test("an anchor at seq 0 that is not the genesis hash is refused", async (t) => {
  const source = sourceOf(() => records, {
    public_key_pem: key.publicPem,
    anchor: { seq: 0, hash: "1".repeat(64) },
  });
  const error = await t.throwsAsync(bundle(source));
  t.true(error instanceof GatewayError);
});
