import { newRequestId } from "../request-id.js";
import type { AppContext } from "../../../app/context.js";
import { MAX_EMBED_CHARS, vectorOf, type Embed } from "../../../cache/embedder.js";
import { GatewayError } from "../../../core/errors.js";
import { newInferenceCall } from "../../../core/inference-call.js";
import { executeJsonCall } from "./relay-json.js";

const EMBED_TIMEOUT_MS = 10_000;

/**
 * The semantic cache's embedding of a prompt as an ordinary inference call of the same caller
 * (key, customer, classification, routing headers): limits, request guardrails, routing, budget,
 * metering and its own audit record (`details.cache_embedding.for_request_id` names the chat call
 * it served) apply as to any `/v1/embeddings` call. It does not take a second concurrency slot: it
 * runs inside the chat call, which holds one. `ctx` is read when the first embedding is needed
 * (the pipeline that runs the call is built with the cache stage that calls this).
 */
export function pipelineEmbedder(ctx: () => AppContext): Embed {
  return async (parent, model, text) => {
    const requestId = newRequestId();
    const call = newInferenceCall({
      requestId,
      endpoint: "embeddings",
      caller: parent.caller,
      requestedModel: model,
      body: { model, input: text.slice(0, MAX_EMBED_CHARS) },
      stream: false,
      declaredClassification: parent.classification,
      startedAt: ctx().clock.now(),
      requestHeaders: parent.requestHeaders ?? {},
      hops: parent.hops,
    });
    call.cacheEmbeddingFor = parent.requestId;
    const result = await executeJsonCall(ctx(), call, abortAfter(EMBED_TIMEOUT_MS), {
      path: "/embeddings",
    });
    if (result.status !== 200) {
      throw new GatewayError("upstream_unavailable", `embedding model answered ${result.status}`);
    }
    const body = typeof result.body === "string" ? (JSON.parse(result.body) as unknown) : null;
    const vector = vectorOf(body);
    if (!vector)
      throw new GatewayError("upstream_unavailable", "embedding model returned no vector");
    return { vector, requestId };
  };
}

function abortAfter(ms: number): AbortController {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), ms).unref();
  return controller;
}
