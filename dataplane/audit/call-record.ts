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

/** What the call's guardrail model checks cost (their classifier calls). */
export function checksCostOf(call: InferenceCall): number {
  return call.checkCalls.reduce((sum, c) => sum + c.costUsd, 0);
}

/** The call's cost including its model checks; undefined when nothing was used. */
export function totalCostOf(call: InferenceCall): number | undefined {
  const own = costOf(call);
  if (own === undefined && call.checkCalls.length === 0) return undefined;
  return Math.round(((own ?? 0) + checksCostOf(call)) * 1e8) / 1e8;
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
      cost_usd: call.costUsd ?? totalCostOf(call) ?? null,
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

/**
 * What a record says beyond the common fields: the batch line, the realtime session, the RAG
 * collection and chunks, the prompt template, the response cache and the guardrail model checks'
 * own calls (null when none applies).
 */
function callDetails(call: InferenceCall): Record<string, unknown> | null {
  const details: Record<string, unknown> = {};
  if (call.streamStop) details.stream_stopped = streamStopDetails(call.streamStop);
  if (call.batch) {
    details.batch_id = call.batch.batchId;
    details.custom_id = call.batch.customId;
  }
  if (call.realtime) details.realtime = realtimeDetails(call.realtime);
  if (call.rag) {
    details.rag = {
      collection_id: call.rag.collectionId,
      purpose: call.rag.purpose,
      chunk_ids: call.rag.chunkIds,
    };
  }
  if (call.prompt) {
    details.prompt = {
      slug: call.prompt.slug,
      version: call.prompt.version,
      arm: call.prompt.arm,
      ab_test_id: call.prompt.abTestId,
    };
  }
  if (call.cache) {
    const c = call.cache;
    details.cache = {
      result: c.result,
      kind: c.kind ?? null,
      key_sha256: c.keyHash ?? null,
      similarity: c.similarity ?? null,
      saved_tokens: c.savedTokens ?? null,
      saved_cost_usd: c.savedCostUsd ?? null,
      ...(c.embeddingRequestId ? { embedding_request_id: c.embeddingRequestId } : {}),
    };
  }
  if (call.cacheEmbeddingFor) details.cache_embedding = { for_request_id: call.cacheEmbeddingFor };
  if (call.checkCalls.length > 0) {
    details.model_checks = call.checkCalls.map((c) => ({
      model: c.model,
      prompt_tokens: c.promptTokens,
      completion_tokens: c.completionTokens,
      cost_usd: c.costUsd,
    }));
  }
  return Object.keys(details).length > 0 ? details : null;
}

/** Where an output guardrail stopped a streamed answer. */
function streamStopDetails(
  stop: NonNullable<InferenceCall["streamStop"]>,
): Record<string, unknown> {
  return {
    choice: stop.choice,
    field: stop.field,
    ...(stop.tool === undefined ? {} : { tool_call: stop.tool }),
    released_chars: stop.releasedChars,
    code: stop.code,
  };
}

/** The realtime session part of a record's details. */
function realtimeDetails(rt: NonNullable<InferenceCall["realtime"]>): Record<string, unknown> {
  return {
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
  };
}
