import type { ChainReport, ChainedRecord } from "../verify-chain.js";

/** The bundle format written by writeEvidenceBundle; bump when a file's shape changes. */
export const BUNDLE_FORMAT = "evident-evidence-bundle";
export const BUNDLE_FORMAT_VERSION = 1;

export type ExportKind = "hipaa" | "soc2";

export interface BundleMeta {
  export_id: string;
  customer_id: string;
  kind: ExportKind;
  /** The requested range, ISO 8601. */
  from: string;
  to: string;
  generator: { name: "evident"; version: string };
  /** ISO 8601; also the mtime of every file in the tar, so the same inputs give the same bytes. */
  generated_at: string;
}

/** A signed checkpoint as stored: signature is base64 Ed25519 over checkpointMessage(). */
export interface BundleCheckpoint {
  customer_id: string;
  seq: number;
  hash: string;
  created_at: string;
  signature: string;
  key_id: string;
}

export interface EvidenceBundleSource {
  meta: BundleMeta;
  /** The customer's records of the range in seq order; read once, lazily. */
  records(): AsyncIterable<ChainedRecord>;
  /** The hash before the first record: { seq: 0, hash: GENESIS_HASH } when the range starts at seq 1. */
  anchor: { seq: number; hash: string };
  /** Guardrail policy, rules, retention, legal holds in force; written as policies.json. */
  policies: Record<string, unknown>;
  /** The checkpoints that cover the range (at the anchor, inside it, and the next one after it). */
  checkpoints: BundleCheckpoint[];
  /** Ed25519 public key (SPKI PEM) that verifies the checkpoint signatures. */
  public_key_pem: string;
}

export interface WriteBundleOptions {
  /** Where the temporary work folder is created (default: os.tmpdir()); removed when done. */
  tmpDir?: string;
}

/** Where a checkpoint sits relative to the exported records. */
export type CheckpointPosition = "anchor" | "in_range" | "outside_range";

export interface CheckpointStatus {
  seq: number;
  hash: string;
  created_at: string;
  key_id: string;
  position: CheckpointPosition;
  signature_valid: boolean;
  customer_matches: boolean;
  /** Whether the record hash at that seq (or the anchor) equals the checkpoint; null if not in the bundle. */
  hash_matches: boolean | null;
}

export interface BundleVerification {
  /** chain.ok && checkpoints_ok. */
  ok: boolean;
  chain: ChainReport;
  /** Every checkpoint is signed by public-key.pem, is this customer's, and matches where checkable. */
  checkpoints_ok: boolean;
  /** Highest seq whose hash a valid checkpoint confirms (the anchor counts), null if none. */
  checkpointed_through: number | null;
  checkpoints: CheckpointStatus[];
}

export interface BundleSummary {
  /** SHA-256 (hex) of the tar.gz bytes written to `out`. */
  sha256: string;
  size: number;
  record_count: number;
  first_seq: number | null;
  last_seq: number | null;
  chain: ChainReport;
  verification: BundleVerification;
}
