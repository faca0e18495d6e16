import type { AppContext } from "../../../app/context.js";
import { unitVector } from "../../../cache/embedder.js";
import { GatewayError } from "../../../core/errors.js";
import { classificationRank, type ClassificationLevel } from "../../../core/identity.js";
import { newInferenceCall, type InferenceCall, type RagUse } from "../../../core/inference-call.js";
import type { QueryEmbedder } from "../../../rag/rag-search.js";
import type { RagCollection } from "../../../rag/rag-types.js";
import { headersForRouting } from "../../../routing/routes/headers-for-routing.js";
import { checkIncomingHops } from "../../../upstream/hop-marker.js";
import type { HandlerInput } from "../route-table.js";
import { declaredClassification } from "./call-lifecycle.js";
import { executeJsonCall } from "./relay-json.js";

/** The higher of two classification levels (undefined counts as none). */
function higher(a: ClassificationLevel | undefined, b: ClassificationLevel): ClassificationLevel {
  return a !== undefined && classificationRank(a) > classificationRank(b) ? a : b;
}

/**
 * An inference call made for a RAG request, as the caller: the request's id and headers, and a
 * declared classification of at least the collection's (its chunks are data of that level).
 */
export function ragCall(
  ctx: AppContext,
  input: HandlerInput<unknown, unknown, unknown>,
  collection: RagCollection,
  init: {
    endpoint: InferenceCall["endpoint"];
    model: string;
    body: Record<string, unknown>;
    stream: boolean;
    rag: RagUse;
  },
): InferenceCall {
  const call = newInferenceCall({
    requestId: input.requestId,
    endpoint: init.endpoint,
    caller: input.caller!,
    requestedModel: init.model,
    body: init.body,
    stream: init.stream,
    declaredClassification: higher(
      declaredClassification(input.request, {}),
      collection.classification,
    ),
    startedAt: ctx.clock.now(),
    requestHeaders: headersForRouting(input.request.headers),
    // A call the gateway sent to itself (through a backend pointing back at it) stops here.
    hops: checkIncomingHops(
      input.request.headers,
      ctx.upstream.hopToken,
      ctx.config.UPSTREAM_MAX_HOPS,
    ),
  });
  call.rag = init.rag;
  return call;
}

/**
 * Embeds a search text with the collection's embedding model as an ordinary embeddings call of
 * the caller: rate limits, guardrails, routing, metering and one audit record (naming the
 * collection) apply, and a refusal is the search's refusal.
 */
export function pipelineEmbedder(
  ctx: AppContext,
  input: HandlerInput<unknown, unknown, unknown>,
  abort: AbortController,
): QueryEmbedder {
  return async (_caller, collection, text) => {
    const model = collection.embeddingModel;
    if (!model)
      throw new GatewayError("validation_failed", "the collection has no embedding model");
    const call = ragCall(ctx, input, collection, {
      endpoint: "embeddings",
      model,
      body: { model, input: text },
      stream: false,
      rag: { collectionId: collection.id, purpose: "search_embedding", chunkIds: [] },
    });
    const result = await executeJsonCall(ctx, call, abort, { path: "/embeddings" });
    if (result.status !== 200) {
      throw new GatewayError(
        "upstream_unavailable",
        `embedding model ${model} answered ${result.status}`,
      );
    }
    const parsed = JSON.parse(String(result.body)) as { data?: { embedding?: unknown }[] };
    const vector = parsed.data?.[0]?.embedding;
    if (
      !Array.isArray(vector) ||
      vector.length === 0 ||
      !vector.every((x) => typeof x === "number" && Number.isFinite(x))
    ) {
      throw new GatewayError("upstream_unavailable", `embedding model ${model} returned no vector`);
    }
    return unitVector(vector as number[]);
  };
}
