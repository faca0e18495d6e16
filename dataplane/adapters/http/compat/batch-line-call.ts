import { newRequestId } from "../request-id.js";
import type { AppContext } from "../../../app/context.js";
import type { LineRun } from "../../../batches/batch-runner.js";
import type { BatchLine, BatchRecord } from "../../../batches/batch-types.js";
import { declaredClassificationOf } from "../../../core/declared-classification.js";
import { errorEnvelope, toGatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { newInferenceCall, pausesBatchLine } from "../../../core/inference-call.js";
import { executeJsonCall } from "./relay-json.js";

const PATHS = {
  "/v1/chat/completions": { endpoint: "chat.completions", path: "/chat/completions" },
  "/v1/embeddings": { endpoint: "embeddings", path: "/embeddings" },
} as const;

/**
 * One batch line as a normal call: the creating key's identity and classification floor, request
 * guardrails, routing, output guardrails, metering and one audit record naming the batch and the
 * custom_id. A refusal by limits or budget is not an answer: the line waits and runs later.
 */
export function batchLineRunner(ctx: AppContext) {
  return async (batch: BatchRecord, caller: Caller, line: BatchLine): Promise<LineRun> => {
    const body = JSON.parse(line.body) as Record<string, unknown>;
    const target = PATHS[batch.endpoint];
    const requestId = newRequestId();
    const call = newInferenceCall({
      requestId,
      endpoint: target.endpoint,
      caller,
      requestedModel: String(body.model),
      body,
      stream: false,
      declaredClassification: declaredClassificationOf(undefined, body),
      startedAt: ctx.clock.now(),
      requestHeaders: {},
    });
    call.batch = { batchId: batch.id, customId: line.customId };
    try {
      const result = await executeJsonCall(ctx, call, new AbortController(), {
        path: target.path,
      });
      const answer = typeof result.body === "string" ? JSON.parse(result.body) : result.body;
      return { kind: "answered", status: result.status, body: answer, requestId };
    } catch (err) {
      const error = toGatewayError(err);
      if (pausesBatchLine(error)) {
        const seconds = Number(error.headers["retry-after"] ?? "1");
        return { kind: "paused", retryAfterMs: Number.isFinite(seconds) ? seconds * 1000 : 1000 };
      }
      return { kind: "answered", status: error.status, body: errorEnvelope(error), requestId };
    }
  };
}
