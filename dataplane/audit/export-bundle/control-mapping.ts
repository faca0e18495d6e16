import type { BundleMeta, BundleVerification, ExportKind } from "./bundle-types.js";
import type { RecordTally } from "./record-tally.js";

export interface EvidenceRef {
  file: string;
  /** Which records of the file, e.g. "kind=inference"; omitted for whole files. */
  records?: string;
  fields?: string[];
  how: string;
}

export interface ControlEvidence {
  id: string;
  title: string;
  description: string;
  evidence: EvidenceRef[];
  counts: Record<string, number | boolean | null>;
}

export interface ControlMapping {
  framework: string;
  kind: ExportKind;
  export_id: string;
  customer_id: string;
  range: { from: string; to: string };
  controls: ControlEvidence[];
  record_counts: Record<string, unknown>;
}

/** Management actions by the resource they change (the action's prefix). */
export const ACCESS_ACTIONS = ["key.", "account.", "user."];
export const CHANGE_ACTIONS = [
  "policy.",
  "rule.",
  "guardrail.",
  "retention.",
  "legal_hold.",
  "model.",
  "deployment.",
  "route.",
  "backend.",
  "budget.",
];

const INFERENCE_FIELDS = [
  "occurred_at",
  "key_id",
  "action",
  "model",
  "backend",
  "route",
  "status",
  "outcome",
];
const INTEGRITY: EvidenceRef[] = [
  {
    file: "records.jsonl",
    fields: ["seq", "record_digest", "prev_hash", "hash"],
    how: "hash chain over every record",
  },
  { file: "checkpoints.json", how: "Ed25519-signed chain heads" },
  { file: "public-key.pem", how: "key that verifies the checkpoint signatures" },
  { file: "manifest.json", how: "chain and checkpoint verification result, file digests" },
  { file: "SHA256SUMS", how: "digest of every file" },
];

export function buildControlMapping(
  meta: BundleMeta,
  tally: RecordTally,
  verification: BundleVerification,
): ControlMapping {
  const controls =
    meta.kind === "hipaa" ? hipaaControls(tally, verification) : soc2Controls(tally, verification);
  return {
    framework:
      meta.kind === "hipaa"
        ? "HIPAA Security Rule, 45 CFR Part 164"
        : "SOC 2 Trust Services Criteria (2017)",
    kind: meta.kind,
    export_id: meta.export_id,
    customer_id: meta.customer_id,
    range: { from: meta.from, to: meta.to },
    controls,
    record_counts: tallyCounts(tally),
  };
}

function integrityCounts(tally: RecordTally, v: BundleVerification): ControlEvidence["counts"] {
  return {
    records_chained: tally.records,
    records_verified: v.chain.checked,
    chain_ok: v.chain.ok,
    first_broken_seq: v.chain.first_broken?.seq ?? null,
    checkpoints: v.checkpoints.length,
    checkpoints_ok: v.checkpoints_ok,
    checkpointed_through: v.checkpointed_through,
  };
}

function hipaaControls(tally: RecordTally, v: BundleVerification): ControlEvidence[] {
  return [
    {
      id: "164.312(b)",
      title: "Audit controls",
      description:
        "Mechanisms that record and examine activity in systems that contain or use ePHI: every inference call and every management change is recorded with who (key id), what, when and the outcome.",
      evidence: [
        {
          file: "records.jsonl",
          records: "kind=inference",
          fields: [...INFERENCE_FIELDS, "verdicts", "classification"],
          how: "one record per call, whatever the outcome",
        },
        {
          file: "records.jsonl",
          records: "kind=management",
          fields: ["occurred_at", "key_id", "action", "subject", "details"],
          how: "changes to keys, policies, retention, holds, models",
        },
      ],
      counts: {
        records: tally.records,
        inference: tally.inference,
        management: tally.management,
        with_key_id: tally.with_key_id,
      },
    },
    {
      id: "164.312(c)(1)",
      title: "Integrity",
      description:
        "Protect ePHI-related records from improper alteration or destruction: records form a SHA-256 hash chain with signed checkpoints, so an edited, removed or reordered record is detectable; request and response bodies are bound by their digests.",
      evidence: [
        ...INTEGRITY,
        {
          file: "records.jsonl",
          records: "kind=inference",
          fields: ["request_sha256", "response_sha256", "content_sha256"],
          how: "digests of the bodies",
        },
      ],
      counts: { ...integrityCounts(tally, v), with_body_digests: tally.with_body_digests },
    },
    {
      id: "164.316(b)(2)",
      title: "Documentation retention",
      description:
        "Retain required documentation for six years: the retention policy and legal holds in force are included; records removed by retention remain as chained tombstones (digest kept, fields removed), so deletion is itself evident.",
      evidence: [
        { file: "policies.json", how: "retention settings and legal holds in force" },
        {
          file: "records.jsonl",
          records: "fields=null",
          fields: ["seq", "record_digest", "hash"],
          how: "tombstones of records deleted by retention",
        },
        {
          file: "records.jsonl",
          records: "kind=management",
          fields: ["action"],
          how: "retention and legal hold changes",
        },
      ],
      counts: {
        records: tally.records,
        tombstones: tally.tombstones,
        retention_and_hold_changes: tally.managementCount(["retention.", "legal_hold."]),
      },
    },
  ];
}

function soc2Controls(tally: RecordTally, v: BundleVerification): ControlEvidence[] {
  const verdictRef: EvidenceRef = {
    file: "records.jsonl",
    records: "kind=inference",
    fields: ["verdicts", "classification", "outcome", "error_code"],
    how: "guardrail verdicts (check, action, score, threshold) on every call",
  };
  return [
    {
      id: "CC6.1",
      title: "Logical access security",
      description:
        "Access to inference and to management functions is by API key; every record names the key id (never the key), and key lifecycle changes are recorded.",
      evidence: [
        {
          file: "records.jsonl",
          fields: ["key_id", "action", "status", "error_code"],
          how: "the key behind every call and change",
        },
        {
          file: "records.jsonl",
          records: "kind=management, action=key.*",
          how: "key creation, rotation, revocation",
        },
        { file: "policies.json", how: "access-related policy in force" },
      ],
      counts: {
        records: tally.records,
        with_key_id: tally.with_key_id,
        access_changes: tally.managementCount(ACCESS_ACTIONS),
      },
    },
    {
      id: "CC6.6",
      title: "Protection against threats from outside the system boundary",
      description:
        "Prompts and responses crossing the gateway are scanned (prompt injection, PII, content safety, custom rules) and blocked, redacted or flagged by policy.",
      evidence: [verdictRef, { file: "policies.json", how: "guardrail policy and rules in force" }],
      counts: {
        inference: tally.inference,
        with_verdicts: tally.with_verdicts,
        guardrail_blocked: tally.guardrail_blocked,
        guardrail_flagged: tally.guardrail_flagged,
      },
    },
    {
      id: "CC7.2",
      title: "Monitoring for anomalies",
      description:
        "System components are monitored for anomalies indicating malicious acts or errors: each call records status, error code, latency and guardrail outcomes; the chain shows the log itself is complete.",
      evidence: [
        {
          file: "records.jsonl",
          records: "kind=inference",
          fields: ["status", "error_code", "latency_ms", "outcome", "verdicts"],
          how: "per-call signals",
        },
        { file: "manifest.json", how: "chain verification result" },
      ],
      counts: {
        inference: tally.inference,
        server_errors: tally.server_errors,
        client_errors: tally.client_errors,
        rate_limited: tally.rate_limited,
        guardrail_blocked: tally.guardrail_blocked,
        chain_ok: v.chain.ok,
      },
    },
    {
      id: "CC7.3",
      title: "Evaluation of security events",
      description:
        "Security events are evaluated: blocked and flagged calls carry the check, score and threshold that decided them, so each event can be reviewed; the records cannot be altered after the fact without detection.",
      evidence: [verdictRef, ...INTEGRITY],
      counts: {
        guardrail_blocked: tally.guardrail_blocked,
        guardrail_flagged: tally.guardrail_flagged,
        ...integrityCounts(tally, v),
      },
    },
    {
      id: "CC8.1",
      title: "Change management",
      description:
        "Changes to policies, rules, retention, legal holds, models and deployments are recorded as management records with the acting key, the resource and the details of the change.",
      evidence: [
        {
          file: "records.jsonl",
          records: "kind=management",
          fields: ["occurred_at", "key_id", "action", "subject", "details"],
          how: "one record per change",
        },
        { file: "policies.json", how: "the resulting policy in force" },
      ],
      counts: { management: tally.management, changes: tally.managementCount(CHANGE_ACTIONS) },
    },
  ];
}

function tallyCounts(t: RecordTally): Record<string, unknown> {
  return {
    records: t.records,
    tombstones: t.tombstones,
    inference: t.inference,
    management: t.management,
    outcomes: t.outcomes.toJSON(),
    error_codes: t.error_codes.toJSON(),
    guardrail_checks: t.checks.toJSON(),
    management_actions: t.management_actions.toJSON(),
  };
}
