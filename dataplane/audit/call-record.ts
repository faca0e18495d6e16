import type { InferenceCall } from "../core/inference-call.js";
import type { PendingAuditRecord } from "../store/audit-repository.js";
import { canonicalJson, sha256Hex } from "./audit-record.js";
import { newAuditRecordId } from "./audit-record-id.js";

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
      id: newAuditRecordId(),
      customer_id: call.caller.customer.id,
      occurred_at: new Date(call.startedAt).toISOString(),
      kind: "inference",
      request_id: call.requestId,
      key_id: call.caller.key.id,
      action: call.endpoint,
      subject: call.requestedModel.slice(0, 256),
      model: call.route?.model.name ?? null,
      backend: call.target?.id ?? null,
      route: call.route ? routeFields(call, call.route) : null,
      classification: call.classification,
      verdicts: call.verdicts.map((v) => ({
        action: v.action,
        check: v.check,
        score: v.score,
        threshold: v.threshold,
      })),
      usage: call.usage
        ? {
            completion_tokens: call.usage.completionTokens,
            prompt_tokens: call.usage.promptTokens,
            source: call.usage.source,
            total_tokens: call.usage.totalTokens,
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

/** The routing part of a record: members in canonical order. */
function routeFields(
  call: InferenceCall,
  route: NonNullable<InferenceCall["route"]>,
): Record<string, unknown> {
  const candidates = route.targets.map((t) => t.id);
  const chosen = call.target?.id ?? null;
  const model_version = route.model.model?.version ?? null;
  if (route.routeId === undefined) return { candidates, chosen, model_version };
  return {
    arm: route.arm ?? null,
    candidates,
    chosen,
    model_version,
    route_id: route.routeId,
    strategy: route.strategy ?? null,
  };
}

/**
 * What a record says beyond the common fields: the batch line, the realtime session, the RAG
 * collection and chunks, the prompt template, the response cache and the guardrail model checks'
 * own calls (null when none applies). Members are added, and built, in canonical order, so the
 * record's canonical JSON is one JSON.stringify (canonical-json.ts); optional ones are left
 * undefined, which neither JSON.stringify nor the canonical text writes.
 */
function callDetails(call: InferenceCall): Record<string, unknown> | null {
  const details: Record<string, unknown> = {};
  if (call.batch) details.batch_id = call.batch.batchId;
  if (call.cache) {
    const c = call.cache;
    details.cache = {
      embedding_request_id: c.embeddingRequestId ? c.embeddingRequestId : undefined,
      key_sha256: c.keyHash ?? null,
      kind: c.kind ?? null,
      result: c.result,
      saved_cost_usd: c.savedCostUsd ?? null,
      saved_tokens: c.savedTokens ?? null,
      similarity: c.similarity ?? null,
    };
  }
  if (call.cacheEmbeddingFor) details.cache_embedding = { for_request_id: call.cacheEmbeddingFor };
  if (call.batch) details.custom_id = call.batch.customId;
  if (call.checkCalls.length > 0) {
    details.model_checks = call.checkCalls.map((c) => ({
      completion_tokens: c.completionTokens,
      cost_usd: c.costUsd,
      model: c.model,
      prompt_tokens: c.promptTokens,
    }));
  }
  if (call.prompt) {
    details.prompt = {
      ab_test_id: call.prompt.abTestId,
      arm: call.prompt.arm,
      slug: call.prompt.slug,
      version: call.prompt.version,
    };
  }
  if (call.rag) {
    details.rag = {
      chunk_ids: call.rag.chunkIds,
      collection_id: call.rag.collectionId,
      document_id: call.rag.documentId,
      purpose: call.rag.purpose,
    };
  }
  if (call.realtime) details.realtime = realtimeDetails(call.realtime);
  if (call.streamStop) details.stream_stopped = streamStopDetails(call.streamStop);
  for (const _ in details) return details; // has a member (without an Object.keys array)
  return null;
}

/** Where an output guardrail stopped a streamed answer. */
function streamStopDetails(
  stop: NonNullable<InferenceCall["streamStop"]>,
): Record<string, unknown> {
  return {
    choice: stop.choice,
    code: stop.code,
    field: stop.field,
    released_chars: stop.releasedChars,
    tool_call: stop.tool,
  };
}

/** The realtime session part of a record's details. */
function realtimeDetails(rt: NonNullable<InferenceCall["realtime"]>): Record<string, unknown> {
  return {
    close_code: rt.closed?.code,
    closed_by: rt.closed?.by,
    kind: rt.kind,
    reason: rt.closed?.reason,
    response_id: rt.responseId,
    session_id: rt.sessionId,
    tokens: rt.closed?.totals,
  };
}
