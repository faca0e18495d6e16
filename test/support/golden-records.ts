import { recordForCall, type ContentMode } from "../../dataplane/audit/call-record.js";
import type { PendingAuditRecord } from "../../dataplane/store/audit-repository.js";
import { goldenCall } from "./audit-call-fixture.js";

const NUL = String.fromCharCode(0);

const withId = (r: PendingAuditRecord, id: string): PendingAuditRecord => ({
  ...r,
  fields: { ...r.fields, id },
});

const callRecord = (plain: boolean, mode: ContentMode, id: string) =>
  withId(recordForCall(goldenCall(plain), Date.UTC(2026, 10, 24, 12, 0, 1, 0), mode), id);

/** Records as recordForCall and management actions make them, ids fixed, for golden tests. */
export function goldenRecords(): PendingAuditRecord[] {
  return [
    callRecord(false, "none", "aud_golden_1"),
    callRecord(false, "full", "aud_golden_2"),
    callRecord(true, "redacted", "aud_golden_3"),
    {
      fields: {
        id: "aud_golden_4",
        customer_id: "c_golden",
        occurred_at: "2026-11-24T12:00:02.000Z",
        kind: "management",
        request_id: null,
        key_id: "key_golden",
        action: "key.create",
        subject: "key_é",
        model: null,
        backend: null,
        route: null,
        classification: null,
        verdicts: [],
        usage: null,
        cost_usd: null,
        latency_ms: null,
        status: null,
        error_code: null,
        outcome: "completed",
        request_sha256: null,
        response_sha256: null,
        content_sha256: null,
        details: { name: `n${NUL}\udc00`, tags: ["a", "b"], "z\ud800": { n: 1e21 } },
      },
      content: null,
    },
  ];
}
