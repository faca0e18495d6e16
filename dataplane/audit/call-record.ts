import { randomUUID } from "node:crypto";
import type { InferenceCall } from "../core/inference-call.js";
import type { PendingAuditRecord } from "../store/audit-repository.js";
import { canonicalJson, sha256Hex } from "./audit-record.js";

export type ContentMode = "none" | "redacted" | "full";

/** Cost in USD from the routed model's prices and the call's usage. */
export function costOf(call: InferenceCall): number | undefined {
  const pricing = call.route?.model.pricing;
  if (!call.usage || !pricing) return undefined;
  const usd =
    (call.usage.promptTokens / 1000) * pricing.inputPer1k +
    (call.usage.completionTokens / 1000) * pricing.outputPer1k;
  return Math.round(usd * 1e8) / 1e8;
}

/** What a record says beyond the common fields: the batch line, or the realtime session. */
function callDetails(call: InferenceCall): Record<string, unknown> | null {
  if (call.batch) return { batch_id: call.batch.batchId, custom_id: call.batch.customId };
  const rt = call.realtime;
  if (!rt) return null;
  return {
    realtime: {
      session_id: rt.sessionId,
      kind: rt.kind,
      ...(rt.responseId === undefined ? {} : { response_id: rt.responseId }),
      ...(rt.closed === undefined
        ? {}
        : {
            closed_by: rt.closed.by,
            close_code: rt.closed.code,
            reason: rt.closed.reason,
            tokens: rt.closed.totals,
          }),
    },
  };
}

/** The audit record of one inference call, whatever its outcome. Never contains the key. */
export function recordForCall(
  call: InferenceCall,
  now: number,
  contentMode: ContentMode,
): PendingAuditRecord {
  const content =
    contentMode === "none"
      ? null
      : {
          mode: contentMode,
          request: contentMode === "full" ? call.originalBody : call.body,
          response: call.responseContent ?? null,
        };
  return {
    fields: {
      id: `aud_${randomUUID().replace(/-/g, "")}`,
      customer_id: call.caller.customer.id,
      occurred_at: new Date(call.startedAt).toISOString(),
      kind: "inference",
      request_id: call.requestId,
      key_id: call.caller.key.id,
      action: call.endpoint,
      subject: call.requestedModel.slice(0, 256),
      model: call.route?.model.name ?? null,
      backend: call.target?.id ?? null,
      route: call.route
        ? {
            model_version: call.route.model.model?.version ?? null,
            candidates: call.route.targets.map((t) => t.id),
            chosen: call.target?.id ?? null,
            ...(call.route.routeId === undefined
              ? {}
              : {
                  route_id: call.route.routeId,
                  strategy: call.route.strategy ?? null,
                  arm: call.route.arm ?? null,
                }),
          }
        : null,
      classification: call.classification,
      verdicts: call.verdicts.map((v) => ({
        check: v.check,
        action: v.action,
        score: v.score,
        threshold: v.threshold,
      })),
      usage: call.usage
        ? {
            prompt_tokens: call.usage.promptTokens,
            completion_tokens: call.usage.completionTokens,
            total_tokens: call.usage.totalTokens,
            source: call.usage.source,
          }
        : null,
      cost_usd: call.costUsd ?? costOf(call) ?? null,
      latency_ms: Math.max(0, now - call.startedAt),
      status: call.status ?? null,
      error_code: call.error?.code ?? null,
      outcome: call.outcome ?? null,
      request_sha256: sha256Hex(canonicalJson(call.originalBody)),
      response_sha256: call.responseDigest ?? null,
      content_sha256: content === null ? null : sha256Hex(canonicalJson(content)),
      details: callDetails(call),
    },
    content,
  };
}
