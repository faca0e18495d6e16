import type { AppContext } from "../../app/context.js";
import { GatewayError } from "../../core/errors.js";
import type { Caller } from "../../core/identity.js";
import { newInferenceCall, type Endpoint, type InferenceCall } from "../../core/inference-call.js";
import { headersForRouting } from "../../routing/routes/headers-for-routing.js";
import type { Target } from "../../routing/routing-types.js";
import { upstreamBody } from "../http/compat/call-lifecycle.js";
import {
  chatCompletionRequestWithPrompt,
  embeddingRequest,
} from "../http/compat/compat-schemas.js";
import { refusedModelName } from "../http/input-text-policy.js";
import { parseOrThrow } from "../http/validation.js";
import { declaredClassificationOf } from "../../core/declared-classification.js";

/** What the request half of an exchange knows once its headers have been seen. */
export interface RequestFacts {
  requestId: string;
  endpoint: Endpoint;
  caller: Caller;
  headers: Record<string, string>;
}

/**
 * The InferenceCall for a complete JSON request body, validated as the REST façade validates it
 * (same schemas, same 400 / 422 errors), with a chat completion's `evident.prompt` reference
 * rendered into its messages as on REST (the forwarded body is the rendered one). Throws before a
 * call exists: recorded as refused, as on REST.
 */
export async function callFromBody(
  ctx: AppContext,
  facts: RequestFacts,
  raw: Buffer,
): Promise<InferenceCall> {
  if (raw.length === 0) {
    throw new GatewayError("invalid_json", "request body is empty; a JSON body is required");
  }
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch {
    throw new GatewayError("invalid_json", "request body is not valid JSON");
  }
  const chat = facts.endpoint === "chat.completions";
  const schema = chat ? chatCompletionRequestWithPrompt : embeddingRequest;
  const parsed = parseOrThrow(schema, json, "body") as Record<string, unknown>;
  const prompted = chat
    ? await ctx.prompts.expand(facts.caller, parsed)
    : { body: parsed, use: undefined };
  const body = prompted.body;
  const call = newInferenceCall({
    requestId: facts.requestId,
    endpoint: facts.endpoint,
    caller: facts.caller,
    requestedModel: String(body.model),
    body,
    stream: chat && body.stream === true,
    declaredClassification: declaredClassificationOf(facts.headers["x-data-classification"], body),
    startedAt: ctx.clock.now(),
    requestHeaders: routingHeaders(facts.headers),
  });
  call.prompt = prompted.use;
  // Chat completions use the response cache as on REST (a hit is answered by ext_proc itself).
  call.cacheable = chat;
  return call;
}

/**
 * A call refused before its body could be admitted (malformed JSON, validation, too large): recorded
 * as `refused` like on REST, with the requested model only when it is a clean string.
 */
export function refusedCall(ctx: AppContext, facts: RequestFacts, raw: Buffer): InferenceCall {
  let json: unknown;
  try {
    json = raw.length <= 1024 * 1024 ? JSON.parse(raw.toString("utf8")) : undefined;
  } catch {
    json = undefined;
  }
  const call = newInferenceCall({
    requestId: facts.requestId,
    endpoint: facts.endpoint,
    caller: facts.caller,
    requestedModel: refusedModelName(json),
    body: {},
    stream: false,
    startedAt: ctx.clock.now(),
  });
  call.outcome = "refused";
  return call;
}

/** The headers smart routes may match on, as REST gives them: no pseudo-headers, no credentials. */
export function routingHeaders(headers: Record<string, string>): Record<string, string> {
  return headersForRouting(
    Object.fromEntries(Object.entries(headers).filter(([name]) => !name.startsWith(":"))),
  );
}

/** The path suffix of each endpoint under a target's base URL. */
const ENDPOINT_PATH: Readonly<Record<Endpoint, string>> = {
  "chat.completions": "/chat/completions",
  embeddings: "/embeddings",
  "audio.transcriptions": "/audio/transcriptions",
  realtime: "/realtime",
};

export interface ForwardPlan {
  target: Target;
  body: Buffer;
  /** Headers to set on the request Envoy forwards. */
  headers: Record<string, string>;
}

/**
 * Where and what Envoy forwards for an admitted call: the routing decision's first target (named
 * in `x-evident-upstream` for Envoy's router), the body as REST would send it (our extension
 * removed, the model rewritten; for streams, usage requested), and the backend's credential.
 */
export function forwardPlan(call: InferenceCall): ForwardPlan {
  const target = call.route?.targets[0];
  if (target === undefined) {
    throw new GatewayError(
      "upstream_unavailable",
      "backend error: no backend is available for this model",
    );
  }
  const base = upstreamBody(call.body, target.upstreamModel);
  const body = call.stream
    ? {
        ...base,
        stream: true,
        stream_options: {
          ...((call.body.stream_options as object | null) ?? {}),
          include_usage: true,
        },
      }
    : base;
  const text = Buffer.from(JSON.stringify(body), "utf8");
  const url = new URL(target.baseUrl);
  const headers: Record<string, string> = {
    "x-evident-upstream": target.baseUrl,
    "x-evident-upstream-host": url.host,
    ":path": `${url.pathname.replace(/\/+$/, "")}${ENDPOINT_PATH[call.endpoint]}`,
    "content-type": "application/json",
    "content-length": String(text.length),
    "x-request-id": call.requestId,
    "x-evident-customer-id": call.caller.customer.id,
    "x-evident-classification": call.classification,
    accept: call.stream ? "text/event-stream" : "application/json",
  };
  if (target.credential !== undefined) headers.authorization = `Bearer ${target.credential}`;
  return { target, body: text, headers };
}
