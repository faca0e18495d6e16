import { recordForCall, type ContentMode } from "../../dataplane/audit/call-record.js";
import { managementRecord } from "../../dataplane/audit/management-record.js";
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
    managementRecord({
      id: "aud_golden_4",
      customerId: "c_golden",
      keyId: "key_golden",
      action: "key.create",
      subject: "key_é",
      details: { name: `n${NUL}\udc00`, tags: ["a", "b"], "z\ud800": { n: 1e21 } },
      occurredAt: "2026-11-24T12:00:02.000Z",
    }),
  ];
}
