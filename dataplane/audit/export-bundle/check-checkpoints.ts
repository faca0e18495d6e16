import { createPublicKey, verify, type KeyObject } from "node:crypto";
import { GatewayError } from "../../core/errors.js";
import { checkpointMessage } from "../audit-record.js";
import type { BundleCheckpoint, CheckpointPosition, CheckpointStatus } from "./bundle-types.js";

/** Parses the checkpoint key; an export with a key that cannot verify anything is a setup error. */
export function loadCheckpointKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (cause) {
    throw new GatewayError("internal_error", "checkpoint public key is not a PEM public key", {
      cause,
    });
  }
  if (key.asymmetricKeyType !== "ed25519") {
    throw new GatewayError("internal_error", "checkpoint public key is not an Ed25519 key");
  }
  return key;
}

export function checkpointSignatureValid(checkpoint: BundleCheckpoint, key: KeyObject): boolean {
  try {
    const signature = Buffer.from(checkpoint.signature, "base64");
    return verify(null, Buffer.from(checkpointMessage(checkpoint)), key, signature);
  } catch {
    return false;
  }
}

/** A checkpoint whose signature and customer check out: its hash may be trusted. */
export interface TrustedCheckpoint {
  checkpoint: BundleCheckpoint;
  signature_valid: boolean;
  customer_matches: boolean;
}

export function assessSignatures(
  checkpoints: readonly BundleCheckpoint[],
  key: KeyObject,
  customerId: string,
): TrustedCheckpoint[] {
  return checkpoints.map((checkpoint) => ({
    checkpoint,
    signature_valid: checkpointSignatureValid(checkpoint, key),
    customer_matches: checkpoint.customer_id === customerId,
  }));
}

/** seq -> hash of the checkpoints that can be trusted, for verifyChain's expectedHashes. */
export function trustedHashes(assessed: readonly TrustedCheckpoint[]): Map<number, string> {
  const hashes = new Map<number, string>();
  for (const a of assessed) {
    if (a.signature_valid && a.customer_matches) hashes.set(a.checkpoint.seq, a.checkpoint.hash);
  }
  return hashes;
}

export interface ExportedRange {
  anchor: { seq: number; hash: string };
  first_seq: number | null;
  last_seq: number | null;
  /** Record hashes seen at the checkpoints' seqs while streaming. */
  hashesAtCheckpoints: ReadonlyMap<number, string>;
}

export function checkpointStatuses(
  assessed: readonly TrustedCheckpoint[],
  range: ExportedRange,
): CheckpointStatus[] {
  return assessed.map(({ checkpoint, signature_valid, customer_matches }) => {
    const position = positionOf(checkpoint.seq, range);
    let hashMatches: boolean | null = null;
    if (position === "anchor") hashMatches = checkpoint.hash === range.anchor.hash;
    if (position === "in_range")
      hashMatches = range.hashesAtCheckpoints.get(checkpoint.seq) === checkpoint.hash;
    return {
      seq: checkpoint.seq,
      hash: checkpoint.hash,
      created_at: checkpoint.created_at,
      key_id: checkpoint.key_id,
      position,
      signature_valid,
      customer_matches,
      hash_matches: hashMatches,
    };
  });
}

function positionOf(seq: number, range: ExportedRange): CheckpointPosition {
  if (seq === range.anchor.seq && seq > 0) return "anchor";
  if (
    range.first_seq !== null &&
    range.last_seq !== null &&
    seq >= range.first_seq &&
    seq <= range.last_seq
  ) {
    return "in_range";
  }
  return "outside_range";
}

export function checkpointsOk(statuses: readonly CheckpointStatus[]): boolean {
  return statuses.every((s) => s.signature_valid && s.customer_matches && s.hash_matches !== false);
}

export function checkpointedThrough(statuses: readonly CheckpointStatus[]): number | null {
  let through: number | null = null;
  for (const s of statuses) {
    if (s.signature_valid && s.customer_matches && s.hash_matches === true)
      through = Math.max(through ?? s.seq, s.seq);
  }
  return through;
}
