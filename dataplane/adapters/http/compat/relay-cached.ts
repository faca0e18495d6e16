import type { FastifyReply } from "fastify";
import type { AppContext } from "../../../app/context.js";
import { sha256Hex } from "../../../audit/audit-record.js";
import { completionAsSse, hitCompletion } from "../../../cache/cached-response.js";
import type { InferenceCall } from "../../../core/inference-call.js";
import { SseRelay } from "../../../upstream/sse-relay.js";
import type { RouteResult } from "../route-table.js";

/** Upstream tokens of a cache hit: none (the tokens saved are in the audit's cache details). */
const CACHED_USAGE = {
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  source: "cache" as const,
};

/** A cache hit's answer, ready for any transport (REST reply, Envoy ImmediateResponse). */
export interface CachedAnswer {
  body: string;
  contentType: string;
}

/**
 * Answers a call from the response cache: the stored completion goes through the response half of
 * the pipeline under the current policy (output guardrails, metering at 0 upstream tokens, audit
 * with outcome served_from_cache), as JSON or, for a streamed call, replayed as server-sent events.
 * The whole answer is known before anything is sent, so a guardrail refusal is an ordinary error:
 * it is thrown for the transport's error path (which records the call).
 */
export async function answerFromCache(
  ctx: AppContext,
  call: InferenceCall,
  /** Runs the post-call work (Envoy bounds how long it waits for it); default: awaits it. */
  finish: (work: () => Promise<void>) => Promise<void> = (work) => work(),
): Promise<CachedAnswer> {
  const completion = hitCompletion(call, call.cache?.response ?? {});
  let answer: CachedAnswer;
  if (call.stream) {
    const relay = new SseRelay(call, (part) => ctx.pipeline.openStreamFilter(call, part));
    const head = relay.push(Buffer.from(completionAsSse(completion)));
    if (relay.refused) throw relay.refused;
    const events = head + relay.end();
    if (relay.refused) throw relay.refused;
    call.responseDigest = relay.responseDigest(true);
    if (call.captureContent) call.responseContent = { text: relay.captured };
    answer = { body: events, contentType: "text/event-stream; charset=utf-8" };
  } else {
    const out = await ctx.pipeline.transformResponse(call, completion);
    const text = JSON.stringify(out);
    call.responseDigest = sha256Hex(text);
    if (call.captureContent) call.responseContent = out;
    answer = { body: text, contentType: "application/json; charset=utf-8" };
  }
  call.usage = CACHED_USAGE;
  call.outcome = "served_from_cache";
  call.status = 200;
  await finish(() => ctx.pipeline.finish(call));
  return answer;
}

/** A non-streamed hit on REST. */
export async function relayCachedJson(ctx: AppContext, call: InferenceCall): Promise<RouteResult> {
  const answer = await answerFromCache(ctx, call);
  return {
    status: 200,
    body: answer.body,
    headers: { ...call.responseHeaders, "content-type": answer.contentType },
  };
}

/** A streamed hit on REST: the events written at once. */
export async function relayCachedStream(
  ctx: AppContext,
  call: InferenceCall,
  reply: FastifyReply,
): Promise<undefined> {
  const answer = await answerFromCache(ctx, call);
  const raw = reply.raw;
  reply.hijack();
  raw.writeHead(200, {
    ...call.responseHeaders,
    "content-type": answer.contentType,
    "cache-control": "no-cache",
    "x-request-id": call.requestId,
  });
  raw.end(answer.body);
  return undefined;
}
