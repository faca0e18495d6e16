import type { PendingAuditRecord } from "../store/audit-repository.js";
import { newAuditRecordId } from "./audit-record-id.js";

export interface ManagementAction {
  customerId: string;
  /** The acting key; null for the gateway's own actions. */
  keyId: string | null;
  action: string;
  subject: string | null;
  details: Record<string, unknown> | null;
  occurredAt: string;
  /** A fresh record id unless given (golden tests fix it). */
  id?: string;
}

/** The audit record of a management action (a change to policy or evidence): no call fields. */
export function managementRecord(m: ManagementAction): PendingAuditRecord {
  return {
    fields: {
      id: m.id ?? newAuditRecordId(),
      customer_id: m.customerId,
      occurred_at: m.occurredAt,
      kind: "management",
      request_id: null,
      key_id: m.keyId,
      action: m.action,
      subject: m.subject,
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
      details: m.details,
    },
    content: null,
  };
}
