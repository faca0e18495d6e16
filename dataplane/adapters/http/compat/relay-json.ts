import type { FastifyReply } from "fastify";
import type { AppContext } from "../../../app/context.js";
import { sha256Hex } from "../../../audit/audit-record.js";
import { GatewayError } from "../../../core/errors.js";
import type { InferenceCall } from "../../../core/inference-call.js";
import { forwardWithRetries } from "../../../upstream/forward-with-retries.js";
import type { UpstreamRequest } from "../../../upstream/upstream-client.js";
import {
  completionText,
  countTextTokens,
  estimatedUsage,
  promptText,
  usageFromUpstream,
} from "../../../upstream/usage.js";
import type { RouteResult } from "../route-table.js";
import { readUpstreamBody, relayedUpstreamError } from "../../../upstream/upstream-failure.js";
import { clientAbortSignal, failCall, upstreamBody } from "./call-lifecycle.js";
import { relayCachedJson } from "./relay-cached.js";
import { guardTranscriptText } from "./transcript-text.js";

const MAX_UPSTREAM_JSON = 64 * 1024 * 1024;

export interface JsonRelayOptions {
  path: string;
  /** Builds the upstream request body for a target; default: the call's JSON body. */
  build?: (call: InferenceCall, upstreamModel: string) => Pick<UpstreamRequest, "body" | "headers">;
  /** Transcriptions: a text answer (text, srt, vtt) is relayed with the backend's content type. */
  textAnswers?: boolean;
}

/**
 * One non-streamed inference call: admit through the pipeline, forward with retries, pass the
 * response back through the pipeline, meter and audit, then answer.
 */
export async function relayJson(
  ctx: AppContext,
  call: InferenceCall,
  reply: FastifyReply,
  options: JsonRelayOptions,
): Promise<RouteResult> {
  return executeJsonCall(ctx, call, clientAbortSignal(reply), options);
}

/**
 * The same call without an HTTP request behind it (batch lines): `abort` ends it early. Refusals
 * and failures are recorded (metered, audited) and thrown as GatewayErrors.
 */
export async function executeJsonCall(
  ctx: AppContext,
  call: InferenceCall,
  abort: AbortController,
  options: JsonRelayOptions,
): Promise<RouteResult> {
  try {
    await ctx.pipeline.admit(call);
    if (call.cache?.result === "hit") return await relayCachedJson(ctx, call);
    const build =
      options.build ??
      ((c: InferenceCall, model: string) => ({
        body: JSON.stringify(upstreamBody(c.body, model)),
        headers: { "content-type": "application/json" },
      }));
    const forwarded = await forwardWithRetries(
      ctx.upstream,
      ctx.health,
      call.route as NonNullable<InferenceCall["route"]>,
      (target) => {
        const built = build(call, target.upstreamModel);
        return {
          path: options.path,
          method: "POST",
          body: built.body,
          headers: { accept: "application/json", "x-request-id": call.requestId, ...built.headers },
          hops: call.hops,
        };
      },
      { retries: ctx.config.UPSTREAM_RETRIES, signal: abort.signal },
    );
    call.target = forwarded.target;
    const { response } = forwarded;
    const raw = await readUpstreamBody(response.body, MAX_UPSTREAM_JSON);
    if (response.status >= 400) {
      const relayed = relayedUpstreamError(response.status, response.headers, raw);
      call.outcome = "upstream_error";
      call.status = relayed.status;
      await ctx.pipeline.finish(call);
      return {
        status: relayed.status,
        body: relayed.body,
        headers: { ...call.responseHeaders, ...relayed.headers },
      };
    }
    const contentType = String(response.headers["content-type"] ?? "");
    if (options.textAnswers && !/json/i.test(contentType))
      return await relayText(ctx, call, raw, contentType);
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      throw new GatewayError(
        "upstream_unavailable",
        "backend error: the backend's response is not JSON",
      );
    }
    const out = await ctx.pipeline.transformResponse(call, json);
    call.usage =
      usageFromUpstream(json) ??
      estimatedUsage(countTextTokens(promptText(call.body)), countTextTokens(completionText(json)));
    // An answer no stage rewrote is relayed as the backend sent it (not serialised again).
    const text = out === json ? raw : JSON.stringify(out);
    call.responseDigest = sha256Hex(text);
    if (call.captureContent) call.responseContent = out;
    call.outcome = "completed";
    call.status = 200;
    await ctx.pipeline.finish(call);
    return {
      status: 200,
      body: text,
      headers: { ...call.responseHeaders, "content-type": "application/json; charset=utf-8" },
    };
  } catch (err) {
    if (abort.signal.aborted) call.outcome = "client_aborted";
    throw await failCall(ctx, call, err);
  }
}

/** A transcription in text, srt or vtt: its words guarded, relayed with its content type. */
async function relayText(
  ctx: AppContext,
  call: InferenceCall,
  raw: string,
  contentType: string,
): Promise<RouteResult> {
  const text = await guardTranscriptText(raw, (body) => ctx.pipeline.transformResponse(call, body));
  call.usage = estimatedUsage(countTextTokens(promptText(call.body)), countTextTokens(text));
  call.responseDigest = sha256Hex(text);
  if (call.captureContent) call.responseContent = { text };
  call.outcome = "completed";
  call.status = 200;
  await ctx.pipeline.finish(call);
  const type = /^[\w.+-]+\/[\w.+-]+(?:;[ \w=.+-]*)?$/.test(contentType)
    ? contentType
    : "text/plain";
  return { status: 200, body: text, headers: { ...call.responseHeaders, "content-type": type } };
}
