/** Test fixtures: a customer's audit chain built with audit-record.ts, and signed checkpoints. */
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import {
  chainHash,
  checkpointMessage,
  GENESIS_HASH,
  recordDigest,
  type AuditFields,
} from "../audit-record.js";
import type { ChainedRecord } from "../verify-chain.js";
import type { BundleCheckpoint, EvidenceBundleSource } from "./bundle-types.js";

export const CUSTOMER = "cust_test";

export function fieldsFor(seq: number, customerId = CUSTOMER): AuditFields {
  const management = seq % 10 === 0;
  const blocked = seq % 7 === 0;
  return {
    id: `rec_${seq}`,
    customer_id: customerId,
    seq,
    occurred_at: new Date(Date.UTC(2026, 0, 1) + seq * 1000).toISOString(),
    kind: management ? "management" : "inference",
    request_id: management ? null : `req_${seq}`,
    key_id: "key_1",
    action: management ? "policy.update" : "chat.completions",
    subject: management ? "policy_default" : "gpt-test",
    model: management ? null : "gpt-test",
    backend: management ? null : "backend-a",
    route: management ? null : { strategy: "weighted", target: "backend-a" },
    classification: management ? null : "phi",
    verdicts: management
      ? []
      : [{ check: "pii", action: blocked ? "block" : "allow", score: 0.25, threshold: 0.5 }],
    usage: management
      ? null
      : { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, source: "upstream" },
    cost_usd: management ? null : 0.000123,
    latency_ms: management ? null : 42,
    status: management ? null : blocked ? 400 : 200,
    error_code: blocked && !management ? "pii_policy_block" : null,
    outcome: management ? null : blocked ? "blocked" : "allowed",
    request_sha256: management ? null : "a".repeat(64),
    response_sha256: management ? null : "b".repeat(64),
    content_sha256: null,
    details: management ? { changed: ["threshold"], note: "ünïcödé ✓" } : null,
  };
}

/** Links fields into a chain after `prevHash`; `tombstones` get fields: null (retention). */
export function* chainOf(
  fields: Iterable<AuditFields>,
  prevHash = GENESIS_HASH,
  tombstones: ReadonlySet<number> = new Set(),
): Generator<ChainedRecord> {
  let prev = prevHash;
  for (const f of fields) {
    const digest = recordDigest(f);
    const hash = chainHash(prev, digest);
    yield {
      seq: f.seq,
      record_digest: digest,
      prev_hash: prev,
      hash,
      fields: tombstones.has(f.seq) ? null : f,
    };
    prev = hash;
  }
}

export function* seqFields(
  from: number,
  to: number,
  customerId = CUSTOMER,
): Generator<AuditFields> {
  for (let seq = from; seq <= to; seq += 1) yield fieldsFor(seq, customerId);
}

export function buildChain(
  count: number,
  tombstones: ReadonlySet<number> = new Set(),
): ChainedRecord[] {
  return [...chainOf(seqFields(1, count), GENESIS_HASH, tombstones)];
}

export interface SigningKey {
  privateKey: KeyObject;
  publicPem: string;
}

export function newSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return { privateKey, publicPem: publicKey.export({ type: "spki", format: "pem" }).toString() };
}

export function checkpointAt(
  record: ChainedRecord,
  key: SigningKey,
  customerId = CUSTOMER,
): BundleCheckpoint {
  const c = {
    customer_id: customerId,
    seq: record.seq,
    hash: record.hash,
    created_at: "2026-01-02T00:00:00.000Z",
  };
  const signature = sign(null, Buffer.from(checkpointMessage(c)), key.privateKey).toString(
    "base64",
  );
  return { ...c, signature, key_id: "ckpt_key_1" };
}

export function sourceOf(
  records: () => AsyncIterable<ChainedRecord> | Iterable<ChainedRecord>,
  parts: Partial<Omit<EvidenceBundleSource, "records">> & { public_key_pem: string },
): EvidenceBundleSource {
  return {
    meta: {
      export_id: "exp_1",
      customer_id: CUSTOMER,
      kind: "hipaa",
      from: "2026-01-01T00:00:00.000Z",
      to: "2026-02-01T00:00:00.000Z",
      generator: { name: "evident", version: "0.1.0" },
      generated_at: "2026-02-01T12:00:00.000Z",
    },
    anchor: { seq: 0, hash: GENESIS_HASH },
    policies: { guardrails: { pii: "block" }, retention: { metadata_days: 2190 }, legal_holds: [] },
    checkpoints: [],
    ...parts,
    records: () => toAsync(records()),
  };
}

async function* toAsync<T>(items: AsyncIterable<T> | Iterable<T>): AsyncGenerator<T> {
  for await (const item of items) yield item;
}
