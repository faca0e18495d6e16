import type { Verdict } from "../guardrails/verdict.js";
import type { RouteDecision, Target } from "../routing/routing-types.js";
import { newStageState, STAGE_STATE } from "./call-state.js";
import type { GatewayError } from "./errors.js";
import type { Caller, ClassificationLevel } from "./identity.js";

export type Endpoint = "chat.completions" | "embeddings" | "audio.transcriptions" | "realtime";

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Whether the backend reported it or we counted it ourselves; "cache": served from the cache. */
  source: "upstream" | "estimated" | "cache";
}

/** The prompt template a call used (when the caller referenced one instead of messages). */
export interface PromptUse {
  slug: string;
  version: number;
  /** The A/B arm ("v3") when an A/B test picked the version; null otherwise. */
  arm: string | null;
  abTestId: string | null;
}

/** What the response cache did for a call. */
export interface CacheOutcome {
  result: "hit" | "miss" | "bypass";
  kind?: "exact" | "semantic";
  keyHash?: string;
  similarity?: number;
  /** Upstream tokens and cost the hit did not spend. */
  savedTokens?: number;
  savedCostUsd?: number;
  /** The stored upstream response to serve (hits only); it still passes output guardrails. */
  response?: Record<string, unknown>;
  /** The semantic lookup's embedding call (its own audit record), when one was made. */
  embeddingRequestId?: string;
}

/** A guardrail model check's own call to a classifier model, metered to the call that caused it. */
export interface CheckCall {
  /** The classifier model's public name. */
  model: string;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

/** Where a guardrail stopped a streamed answer (recorded in the call's audit record). */
export interface StreamStop {
  choice: number;
  field: "content" | "refusal" | "arguments";
  tool?: number;
  /** Characters of that part's text the caller had received before the stop. */
  releasedChars: number;
  /** The error code of the block. */
  code: string;
}

/** How a call ended, for metering and audit. */
export type CallOutcome =
  | "completed"
  | "served_from_cache"
  | "blocked"
  | "rate_limited"
  | "refused"
  | "upstream_error"
  | "client_aborted"
  | "stream_failed";

/**
 * One inference call as core sees it, whatever transport brought it (REST or Envoy). Stages read
 * and fill it in pipeline order.
 */
export interface InferenceCall {
  requestId: string;
  endpoint: Endpoint;
  caller: Caller;
  /** The model name or alias as the caller wrote it. */
  requestedModel: string;
  /** Request headers (lower-case names, credentials left out), for smart-route header matching. */
  readonly requestHeaders?: Readonly<Record<string, string>>;
  /** The JSON body (for transcriptions: the form fields). Stages may rewrite it (redaction). */
  body: Record<string, unknown>;
  stream: boolean;
  /** Classification the caller declared (header or body), if any. */
  declaredClassification: ClassificationLevel | undefined;
  /** Milliseconds since the epoch when the call arrived. */
  startedAt: number;
  classification: ClassificationLevel;
  verdicts: Verdict[];
  route: RouteDecision | undefined;
  /** Where the call was actually sent. */
  target: Target | undefined;
  usage: Usage | undefined;
  outcome: CallOutcome | undefined;
  error: GatewayError | undefined;
  /** HTTP status the caller got. */
  status: number | undefined;
  /** The body as the caller sent it (before any redaction), for digests and full-content audit. */
  readonly originalBody: Record<string, unknown>;
  /** SHA-256 (hex) of the response the caller got, when there was one. */
  responseDigest: string | undefined;
  /** The response content as the caller got it (captured only when content logging is on). */
  responseContent: unknown;
  /** Set by the audit stage when the customer keeps content. */
  captureContent: boolean;
  /** Cost in USD from the model's prices and the usage. */
  costUsd: number | undefined;
  /** Headers every response of this call carries (e.g. X-RateLimit-*), success or not. */
  responseHeaders: Record<string, string>;
  /** Tokens reserved before forwarding (estimate), settled to `usage` after the call. */
  reservedTokens: number;
  /** Set when an output guardrail stopped a stream part-way. */
  streamStop?: StreamStop;
  /** Gateways this call has passed before reaching us (0 from a client); outbound calls add one. */
  hops: number;
  /** Classifier calls made by guardrail model checks for this call (metered and audited with it). */
  checkCalls: CheckCall[];
  /** The stages' own state for this call, one slot per CallState (call-state.ts); not its data. */
  [STAGE_STATE]?: unknown[];
  /** Set by the adapter when it can serve a response from the cache (REST chat completions). */
  cacheable?: boolean;
  cache?: CacheOutcome;
  /** Set on the semantic cache's embedding call: the request id of the chat call it serves. */
  cacheEmbeddingFor?: string;
  prompt?: PromptUse;
  /** Set when the call is one line of a batch job (lower priority; the audit record names it). */
  batch?: BatchLineRef;
  /** Set for a realtime session (counted as one request) and each of its responses (tokens). */
  realtime?: RealtimeRef;
  /** Set when the call serves RAG search or query (the audit record names collection and chunks). */
  rag?: RagUse;
}

/**
 * What a RAG call was for: embedding a document's chunks at ingestion, embedding a search text, or
 * answering from chunks given to the model.
 */
export interface RagUse {
  collectionId: string;
  /** The document whose chunks an ingestion call embeds (ingest_embedding). */
  documentId?: string;
  purpose: "ingest_embedding" | "search_embedding" | "query_answer";
  /** The chunks given to the model, in source-number order (query_answer). */
  chunkIds: string[];
}

/** A realtime session, or one response within it; `closed` is filled when the session ends. */
export interface RealtimeRef {
  sessionId: string;
  kind: "session" | "response";
  responseId?: string;
  closed?: {
    by: "client" | "backend" | "gateway";
    code: number;
    reason: string;
    /** Tokens of every response of the session (each response was metered on its own). */
    totals: { prompt: number; completion: number; total: number };
  };
}

/** A call that answered the caller: completed upstream or served from the cache. */
export function succeeded(call: Pick<InferenceCall, "outcome">): boolean {
  return call.outcome === "completed" || call.outcome === "served_from_cache";
}

/** The batch job and line a call runs for. */
export interface BatchLineRef {
  batchId: string;
  customId: string;
}

/**
 * Refusals a batch line waits out instead of failing (limits, budget, a store briefly away): the
 * line is given back and tried again later, so such an attempt is not the line's audit record.
 */
export function pausesBatchLine(error: GatewayError | undefined): boolean {
  if (!error) return false;
  return error.status === 429 || error.status === 503 || error.code === "budget_exceeded";
}

export function newInferenceCall(init: {
  requestId: string;
  endpoint: Endpoint;
  caller: Caller;
  requestedModel: string;
  body: Record<string, unknown>;
  stream: boolean;
  declaredClassification?: ClassificationLevel;
  startedAt: number;
  requestHeaders?: Readonly<Record<string, string>>;
  hops?: number;
}): InferenceCall {
  return {
    ...init,
    declaredClassification: init.declaredClassification,
    classification: init.declaredClassification ?? "public",
    verdicts: [],
    route: undefined,
    target: undefined,
    usage: undefined,
    outcome: undefined,
    error: undefined,
    status: undefined,
    originalBody: init.body,
    responseDigest: undefined,
    responseContent: undefined,
    captureContent: false,
    costUsd: undefined,
    responseHeaders: {},
    reservedTokens: 0,
    hops: init.hops ?? 0,
    checkCalls: [],
    [STAGE_STATE]: newStageState(),
  };
}
