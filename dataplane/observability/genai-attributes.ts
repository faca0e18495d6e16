import type { Attributes } from "@opentelemetry/api";
import type { InferenceCall } from "../core/inference-call.js";

/** What the backend's response says about itself (from the JSON body, before any rewriting). */
export interface ResponseDetails {
  model: string | undefined;
  finishReasons: string[];
}

const MAX = 256;

export function responseDetails(body: Record<string, unknown>): ResponseDetails {
  const choices = Array.isArray(body.choices) ? (body.choices as unknown[]) : [];
  const finishReasons = choices
    .map((c) =>
      c && typeof c === "object" ? (c as { finish_reason?: unknown }).finish_reason : undefined,
    )
    .filter((r): r is string => typeof r === "string")
    .map((r) => r.slice(0, 64));
  return {
    model: typeof body.model === "string" ? body.model.slice(0, MAX) : undefined,
    finishReasons,
  };
}

/**
 * GenAI semantic-convention attributes of a call (gen_ai.*), plus Evident's own (evident.*).
 * Prompt and completion text are never attributes.
 */
export function callAttributes(call: InferenceCall, response?: ResponseDetails): Attributes {
  const attributes: Attributes = {
    "gen_ai.operation.name": call.endpoint === "embeddings" ? "embeddings" : "chat",
    "gen_ai.system": "openai",
    "gen_ai.request.model": call.requestedModel.slice(0, MAX),
    "evident.request_id": call.requestId.slice(0, MAX),
    "evident.customer_id": call.caller.customer.id,
    "evident.stream": call.stream,
  };
  if (call.route) attributes["evident.model"] = call.route.model.name;
  const responseModel = response?.model ?? call.target?.upstreamModel;
  if (responseModel) attributes["gen_ai.response.model"] = responseModel;
  if (call.usage) {
    attributes["gen_ai.usage.input_tokens"] = call.usage.promptTokens;
    attributes["gen_ai.usage.output_tokens"] = call.usage.completionTokens;
  }
  if (response && response.finishReasons.length > 0)
    attributes["gen_ai.response.finish_reasons"] = response.finishReasons;
  if (call.status !== undefined) attributes["http.response.status_code"] = call.status;
  if (call.outcome) attributes["evident.outcome"] = call.outcome;
  if (call.error) attributes["error.type"] = call.error.code;
  if (call.costUsd !== undefined) attributes["evident.cost_usd"] = call.costUsd;
  return attributes;
}
