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

/**
 * Answers a call from the response cache: the stored completion goes through the response half of
 * the pipeline under the current policy (output guardrails, metering at 0 upstream tokens, audit
 * with outcome served_from_cache), as JSON or replayed as server-sent events. The whole answer is
 * known before anything is sent, so a guardrail refusal is an ordinary error response. Throws a
 * refusal for the relay's error path.
 */
export async function relayCachedJson(ctx: AppContext, call: InferenceCall): Promise<RouteResult> {
  const completion = hitCompletion(call, call.cache?.response ?? {});
  const out = await ctx.pipeline.transformResponse(call, completion);
  const text = JSON.stringify(out);
  call.usage = CACHED_USAGE;
  call.responseDigest = sha256Hex(text);
  if (call.captureContent) call.responseContent = out;
  call.outcome = "served_from_cache";
  call.status = 200;
  await ctx.pipeline.finish(call);
  return {
    status: 200,
    body: text,
    headers: { ...call.responseHeaders, "content-type": "application/json; charset=utf-8" },
  };
}

/** The streamed form of relayCachedJson: the stored completion replayed as server-sent events. */
export async function relayCachedStream(
  ctx: AppContext,
  call: InferenceCall,
  reply: FastifyReply,
): Promise<undefined> {
  const completion = hitCompletion(call, call.cache?.response ?? {});
  const relay = new SseRelay(call, ctx.pipeline.openStreamFilter(call));
  const head = relay.push(Buffer.from(completionAsSse(completion)));
  const events = relay.refused ? "" : head + relay.end();
  if (relay.refused) throw relay.refused;
  call.usage = CACHED_USAGE;
  call.responseDigest = relay.responseDigest(true);
  if (call.captureContent) call.responseContent = { text: relay.captured };
  call.outcome = "served_from_cache";
  call.status = 200;
  await ctx.pipeline.finish(call);
  const raw = reply.raw;
  reply.hijack();
  raw.writeHead(200, {
    ...call.responseHeaders,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    "x-request-id": call.requestId,
  });
  raw.end(events);
  return undefined;
}
