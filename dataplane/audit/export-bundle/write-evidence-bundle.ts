import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Transform, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import tar from "tar-stream";
import { GatewayError } from "../../core/errors.js";
import { GENESIS_HASH } from "../audit-record.js";
import {
  assessSignatures,
  checkpointedThrough,
  checkpointStatuses,
  checkpointsOk,
  loadCheckpointKey,
  trustedHashes,
} from "./check-checkpoints.js";
import { buildControlMapping } from "./control-mapping.js";
import { spoolRecords, type SpooledRecords } from "./spool-records.js";
import {
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_VERSION,
  type BundleSummary,
  type BundleVerification,
  type EvidenceBundleSource,
  type WriteBundleOptions,
} from "./bundle-types.js";

const RECORDS_FILE = "records.jsonl";

/**
 * Writes an evidence bundle (tar.gz) for one customer's range of audit records to `out`, and ends
 * `out` (on failure it is destroyed instead, and what it received must be discarded). Records are streamed once to a temporary file (hashed, tallied and chain-verified on the
 * way), then the tar is assembled from that file, so memory does not grow with the record count.
 * A broken chain does not fail the export: the manifest reports it. Layout: docs/evidence-bundle.md.
 */
export async function writeEvidenceBundle(
  source: EvidenceBundleSource,
  out: Writable,
  options: WriteBundleOptions = {},
): Promise<BundleSummary> {
  checkMeta(source);
  const key = loadCheckpointKey(source.public_key_pem);
  const assessed = assessSignatures(source.checkpoints, key, source.meta.customer_id);
  const workDir = await mkdtemp(join(options.tmpDir ?? tmpdir(), "evident-bundle-"));
  try {
    const recordsPath = join(workDir, RECORDS_FILE);
    const spooled = await spoolRecords(recordsPath, {
      customerId: source.meta.customer_id,
      records: source.records(),
      anchor: source.anchor,
      expectedHashes: trustedHashes(assessed),
      checkpointSeqs: new Set(source.checkpoints.map((c) => c.seq)),
    });
    const statuses = checkpointStatuses(assessed, rangeOf(source, spooled));
    const checkpointsValid = checkpointsOk(statuses);
    const verification: BundleVerification = {
      ok: spooled.chain.ok && checkpointsValid,
      chain: spooled.chain,
      checkpoints_ok: checkpointsValid,
      checkpointed_through: checkpointedThrough(statuses),
      checkpoints: statuses,
    };
    const small = smallFiles(source, spooled, verification);
    const archive = await writeTarGz(out, source.meta.generated_at, small, {
      path: recordsPath,
      size: spooled.size,
    });
    return {
      sha256: archive.sha256,
      size: archive.size,
      record_count: spooled.record_count,
      first_seq: spooled.first_seq,
      last_seq: spooled.last_seq,
      chain: spooled.chain,
      verification,
    };
  } catch (err) {
    // Never leave `out` open: it holds a partial bundle the caller must discard.
    if (!out.destroyed) out.destroy();
    throw err;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Caller errors that would make a bundle nobody can verify; refused before any work. */
function checkMeta(source: EvidenceBundleSource): void {
  if (source.anchor.seq === 0 && source.anchor.hash !== GENESIS_HASH) {
    throw new GatewayError("internal_error", "an anchor at seq 0 must be the genesis hash");
  }
  if (Number.isNaN(Date.parse(source.meta.generated_at))) {
    throw new GatewayError("internal_error", "generated_at is not an ISO 8601 time");
  }
}

function rangeOf(source: EvidenceBundleSource, spooled: SpooledRecords) {
  return {
    anchor: source.anchor,
    first_seq: spooled.first_seq,
    last_seq: spooled.last_seq,
    hashesAtCheckpoints: spooled.hashesAtCheckpoints,
  };
}

function jsonFile(value: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`);
}

function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** Every file but records.jsonl, in tar order; manifest.json and SHA256SUMS first. */
function smallFiles(
  source: EvidenceBundleSource,
  spooled: SpooledRecords,
  verification: BundleVerification,
): Map<string, Buffer> {
  const { meta } = source;
  const pem = source.public_key_pem.endsWith("\n")
    ? source.public_key_pem
    : `${source.public_key_pem}\n`;
  const described = new Map<string, Buffer>([
    ["controls.json", jsonFile(buildControlMapping(meta, spooled.tally, verification))],
    ["policies.json", jsonFile(source.policies)],
    ["checkpoints.json", jsonFile(source.checkpoints)],
    ["public-key.pem", Buffer.from(pem)],
  ]);
  const files: Record<string, { sha256: string; size: number }> = {
    [RECORDS_FILE]: { sha256: spooled.sha256, size: spooled.size },
  };
  for (const [name, data] of described) files[name] = { sha256: sha256(data), size: data.length };
  const manifest = jsonFile({
    format: BUNDLE_FORMAT,
    format_version: BUNDLE_FORMAT_VERSION,
    export_id: meta.export_id,
    customer_id: meta.customer_id,
    kind: meta.kind,
    range: { from: meta.from, to: meta.to },
    generator: meta.generator,
    generated_at: meta.generated_at,
    record_count: spooled.record_count,
    first_seq: spooled.first_seq,
    last_seq: spooled.last_seq,
    anchor: { ...source.anchor, attested_by: anchorAttestation(source.anchor, verification) },
    verification,
    files: Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))),
  });
  const digests = new Map<string, string>(
    Object.entries(files).map(([name, f]) => [name, f.sha256]),
  );
  digests.set("manifest.json", sha256(manifest));
  const sums = [...digests.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, digest]) => `${digest}  ${name}\n`)
    .join("");
  return new Map([["manifest.json", manifest], ["SHA256SUMS", Buffer.from(sums)], ...described]);
}

/** Why the anchor hash may be trusted: the chain's start, a matching signed checkpoint, or nothing. */
function anchorAttestation(
  anchor: { seq: number },
  v: BundleVerification,
): "genesis" | "checkpoint" | "none" {
  if (anchor.seq === 0) return "genesis";
  const attested = v.checkpoints.some(
    (c) =>
      c.position === "anchor" && c.signature_valid && c.customer_matches && c.hash_matches === true,
  );
  return attested ? "checkpoint" : "none";
}

async function writeTarGz(
  out: Writable,
  generatedAt: string,
  small: Map<string, Buffer>,
  records: { path: string; size: number },
): Promise<{ sha256: string; size: number }> {
  const mtime = new Date(generatedAt);
  const pack = tar.pack();
  const hash = createHash("sha256");
  let size = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  const header = (name: string, length: number) => ({
    name,
    size: length,
    mtime,
    mode: 0o644,
    type: "file" as const,
  });
  const written = pipeline(pack, createGzip(), measure, out);
  const entries = (async () => {
    for (const [name, data] of small) {
      await new Promise<void>((resolve, reject) => {
        pack.entry(header(name, data.length), data, (err) => (err ? reject(err) : resolve()));
      });
    }
    await pipeline(createReadStream(records.path), pack.entry(header(RECORDS_FILE, records.size)));
    pack.finalize();
  })().catch((err: unknown) => {
    pack.destroy(err instanceof Error ? err : new Error(String(err)));
    throw err;
  });
  await Promise.all([written, entries]);
  return { sha256: hash.digest("hex"), size };
}
