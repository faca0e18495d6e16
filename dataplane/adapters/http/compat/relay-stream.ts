import { createHash } from "node:crypto";
import { once } from "node:events";
import type { FastifyReply } from "fastify";
import type { AppContext } from "../../../app/context.js";
import { errorEnvelope, GatewayError, toGatewayError } from "../../../core/errors.js";
import type { InferenceCall } from "../../../core/inference-call.js";
import type { StreamTextFilter } from "../../../core/pipeline.js";
import { forwardWithRetries } from "../../../upstream/forward-with-retries.js";
import { formatSseEvent, SseParser, type SseEvent } from "../../../upstream/sse-parser.js";
import {
  countTextTokens,
  estimatedUsage,
  promptText,
  usageFromUpstream,
} from "../../../upstream/usage.js";
import type { RouteResult } from "../route-table.js";
import {
  clientAbortSignal,
  failCall,
  upstreamBody,
  upstreamClientError,
} from "./call-lifecycle.js";

const MAX_CAPTURE = 1024 * 1024;

interface StreamState {
  call: InferenceCall;
  filter: StreamTextFilter;
  clientWantsUsage: boolean;
  completionTokens: number;
  refused: GatewayError | undefined;
  /** The text the client received, when content is kept (bounded). */
  captured: string;
}

/**
 * A streamed chat completion. Until the upstream answers with a stream, failures are ordinary
 * error responses (and are retried on other targets). Once the stream has begun, every event is
 * relayed as its own write as soon as it arrives, through the pipeline's stream filter; a failure
 * after that point ends the stream with an error event (see docs/api.md).
 */
export async function relayStream(
  ctx: AppContext,
  call: InferenceCall,
  reply: FastifyReply,
): Promise<RouteResult | undefined> {
  const abort = clientAbortSignal(reply);
  const clientWantsUsage =
    (call.body.stream_options as { include_usage?: boolean } | null | undefined)?.include_usage ===
    true;
  let forwarded;
  try {
    await ctx.pipeline.admit(call);
    forwarded = await forwardWithRetries(
      ctx.upstream,
      ctx.health,
      call.route as NonNullable<InferenceCall["route"]>,
      (target) => ({
        path: "/chat/completions",
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "text/event-stream",
          "x-request-id": call.requestId,
        },
        body: JSON.stringify({
          ...upstreamBody(call.body, target.upstreamModel),
          stream: true,
          // Ask for usage so metering uses the backend's count; hidden from clients that did not ask.
          stream_options: {
            ...((call.body.stream_options as object | null) ?? {}),
            include_usage: true,
          },
        }),
      }),
      { retries: ctx.config.UPSTREAM_RETRIES, signal: abort.signal },
    );
    call.target = forwarded.target;
    if (forwarded.response.status >= 400) {
      const text = await forwarded.response.body.text();
      const relayed = upstreamClientError(forwarded.response.status, text);
      call.outcome = "upstream_error";
      call.status = relayed.status;
      await ctx.pipeline.finish(call);
      return { ...relayed, headers: call.responseHeaders };
    }
  } catch (err) {
    if (abort.signal.aborted) call.outcome = "client_aborted";
    throw await failCall(ctx, call, err);
  }

  const raw = reply.raw;
  reply.hijack();
  raw.writeHead(200, {
    ...call.responseHeaders,
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    "x-accel-buffering": "no",
    "x-request-id": call.requestId,
  });
  raw.flushHeaders();
  const state: StreamState = {
    call,
    filter: ctx.pipeline.openStreamFilter(call),
    clientWantsUsage,
    completionTokens: 0,
    refused: undefined,
    captured: "",
  };
  const digest = createHash("sha256");
  const write = async (text: string) => {
    if (text.length === 0 || raw.destroyed) return;
    digest.update(text);
    if (!raw.write(text)) await Promise.race([once(raw, "drain"), once(raw, "close")]);
  };

  const parser = new SseParser();
  try {
    for await (const chunk of forwarded.response.body) {
      for (const event of parser.push(chunk as Uint8Array)) {
        await write(relayEvent(state, event));
        if (state.refused) break;
      }
      if (state.refused) break;
    }
    if (!state.refused) for (const event of parser.end()) await write(relayEvent(state, event));
    if (!state.refused) {
      const tail = state.filter.end();
      if (tail.refusal) state.refused = tail.refusal;
      else if (tail.emit) await write(formatSseEvent(JSON.stringify(textChunk(call, tail.emit))));
    }
    if (state.refused) {
      forwarded.response.body.destroy();
      throw state.refused;
    }
    call.usage ??= estimatedUsage(countTextTokens(promptText(call.body)), state.completionTokens);
    call.outcome = "completed";
    call.status = 200;
    digest.update("data: [DONE]\n\n");
    call.responseDigest = digest.copy().digest("hex");
    if (call.captureContent) call.responseContent = { text: state.captured };
    await ctx.pipeline.finish(call);
    await write("data: [DONE]\n\n");
    raw.end();
  } catch (err) {
    const error = abort.signal.aborted ? undefined : toGatewayError(err);
    call.outcome = abort.signal.aborted
      ? "client_aborted"
      : state.refused
        ? "blocked"
        : "stream_failed";
    call.usage ??= estimatedUsage(countTextTokens(promptText(call.body)), state.completionTokens);
    if (call.captureContent) call.responseContent = { text: state.captured, interrupted: true };
    call.responseDigest = digest.copy().digest("hex");
    const failure =
      error && error.code === "internal_error"
        ? new GatewayError("upstream_unavailable", "backend error: the stream was interrupted")
        : (error ?? new GatewayError("upstream_unavailable", "the client went away"));
    await failCall(ctx, call, failure);
    if (!raw.destroyed) {
      await write(formatSseEvent(JSON.stringify(errorEnvelope(failure))));
      raw.end();
    }
  }
  return undefined;
}

/** One upstream event -> what the client gets (possibly nothing). */
function relayEvent(state: StreamState, event: SseEvent): string {
  if (event.data === "[DONE]") return "";
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(event.data) as Record<string, unknown>;
  } catch {
    return formatSseEvent(event.data, event.event);
  }
  const usage = usageFromUpstream(json);
  if (usage) state.call.usage = usage;
  const choices = Array.isArray(json.choices) ? (json.choices as Record<string, unknown>[]) : [];
  if (usage && choices.length === 0 && !state.clientWantsUsage) return "";
  let changed = false;
  if (!state.clientWantsUsage && json.usage != null) {
    json = { ...json };
    delete json.usage;
    changed = true;
  }
  for (const choice of choices) {
    const delta = choice.delta as { content?: unknown } | undefined;
    if (typeof delta?.content !== "string") continue;
    state.completionTokens += countTextTokens(delta.content);
    const filtered = state.filter.push(delta.content);
    if (filtered.refusal) {
      state.refused = filtered.refusal;
      return "";
    }
    if (state.call.captureContent && state.captured.length < MAX_CAPTURE)
      state.captured += filtered.emit;
    if (filtered.emit !== delta.content) {
      delta.content = filtered.emit;
      changed = true;
    }
  }
  return changed
    ? formatSseEvent(JSON.stringify(json), event.event)
    : formatSseEvent(event.data, event.event);
}

function textChunk(call: InferenceCall, text: string): Record<string, unknown> {
  return {
    id: `chatcmpl-${call.requestId}`,
    object: "chat.completion.chunk",
    created: Math.floor(call.startedAt / 1000),
    model: call.route?.model.name ?? call.requestedModel,
    choices: [{ index: 0, delta: { content: text }, finish_reason: null }],
  };
}
