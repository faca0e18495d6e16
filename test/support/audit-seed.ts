import { randomUUID } from "node:crypto";
import { canonicalJson, sha256Hex } from "../../dataplane/audit/audit-record.js";
import type { PendingAuditRecord } from "../../dataplane/store/audit-repository.js";
import { call, type RunningApp } from "./test-app.js";

/** Audit records written straight into the store (no calls), for chain and retention tests. */
export function pendingRecord(
  customerId: string,
  occurredAt: Date,
  model = "m",
): PendingAuditRecord {
  const content = { mode: "full", request: { x: 1 }, response: null };
  return {
    fields: {
      id: `aud_${randomUUID()}`,
      customer_id: customerId,
      occurred_at: occurredAt.toISOString(),
      kind: "inference",
      request_id: randomUUID(),
      key_id: "key_x",
      action: "chat.completions",
      subject: model,
      model,
      backend: null,
      route: null,
      classification: "public",
      verdicts: [],
      usage: null,
      cost_usd: null,
      latency_ms: 1,
      status: 200,
      error_code: null,
      outcome: "completed",
      request_sha256: null,
      response_sha256: null,
      content_sha256: sha256Hex(canonicalJson(content)),
      details: null,
    },
    content,
  };
}

export async function seedAuditRecords(
  app: RunningApp,
  customerId: string,
  times: Date[],
): Promise<void> {
  const repo = app.app.ctx.repos.audit;
  await app.app.ctx.db.transaction((tx) =>
    repo.appendBatch(
      tx,
      times.map((t) => pendingRecord(customerId, t)),
    ),
  );
}

/** The verification report for customer c_chain. */
export const verifyChain = async (app: RunningApp, query = "") =>
  (await call(app.url, "GET", `/api/v1/audit/verify?customer_id=c_chain${query}`, app.adminKey))
    .json as {
    ok: boolean;
    checked: number;
    first_broken: { seq: number; reason: string } | null;
  };
