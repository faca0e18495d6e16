import type { ServerResponse } from "node:http";
import type { FastifyReply } from "fastify";
import type { AppContext } from "../../../app/context.js";
import { errorEnvelope, GatewayError, toGatewayError } from "../../../core/errors.js";
import type { InferenceCall } from "../../../core/inference-call.js";
import { forwardWithRetries } from "../../../upstream/forward-with-retries.js";
import { formatSseEvent } from "../../../upstream/sse-parser.js";
import { SseRelay } from "../../../upstream/sse-relay.js";
import { countTextTokens, estimatedUsage, promptText } from "../../../upstream/usage.js";
import type { RouteResult } from "../route-table.js";
import { guardrailTurn } from "../../../core/turn-batch.js";
import { relayCachedStream } from "./relay-cached.js";
import {
  readUpstreamBody,
  relayedUpstreamError,
  upstreamFailure,
} from "../../../upstream/upstream-failure.js";
import { clientAbortSignal, failCall, upstreamBody } from "./call-lifecycle.js";

const MAX_UPSTREAM_ERROR = 1024 * 1024;
/**
 * The response headers go out with the first relayed bytes (one write, not two); when nothing has
 * been relayed this long after the backend answered, they go out alone.
 */
const HEADERS_ALONE_AFTER_MS = 25;

export interface StreamRelayOptions {
  /** Events the gateway sends first, once the stream has begun (RAG query: its sources). */
  preamble?: string;
}

/**
 * A streamed chat completion. Until the upstream answers with a stream, failures are ordinary
 * error responses (and are retried on other targets). Once the stream has begun, each upstream
 * chunk's events are relayed as soon as they arrive, through the pipeline's stream filter; a failure
 * after that point ends the stream with an error event (see docs/api.md).
 */
export async function relayStream(
  ctx: AppContext,
  call: InferenceCall,
  reply: FastifyReply,
  options: StreamRelayOptions = {},
): Promise<RouteResult | undefined> {
  const abort = clientAbortSignal(reply);
  let forwarded;
  try {
    await ctx.pipeline.admit(call);
    if (call.cache?.result === "hit") return await relayCachedStream(ctx, call, reply);
    forwarded = await forwardWithRetries(
      ctx.upstream,
      ctx.health,
      call.route as NonNullable<InferenceCall["route"]>,
      (target) => ({
        path: "/chat/completions",
        method: "POST",
        hops: call.hops,
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
    const { response } = forwarded;
    if (response.status >= 400) {
      const text = await readUpstreamBody(response.body, MAX_UPSTREAM_ERROR);
      const relayed = relayedUpstreamError(response.status, response.headers, text);
      call.outcome = "upstream_error";
      call.status = relayed.status;
      await ctx.pipeline.finish(call);
      return {
        status: relayed.status,
        body: relayed.body,
        headers: { ...call.responseHeaders, ...relayed.headers },
      };
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
  const headersAlone = setTimeout(() => {
    if (!raw.destroyed && !raw.headersSent) raw.flushHeaders();
  }, HEADERS_ALONE_AFTER_MS);
  const relay = new SseRelay(call, (part) => ctx.pipeline.openStreamFilter(call, part));
  const write = async (text: string) => {
    if (text.length === 0 || raw.destroyed) return;
    clearTimeout(headersAlone);
    if (!raw.write(text)) await drainedOrClosed(raw);
  };
  /** The last bytes and the end of the response in one write. */
  const end = (text: string) => {
    clearTimeout(headersAlone);
    if (!raw.destroyed) raw.end(text);
  };
  /**
   * Relayed text not written yet: held only once the backend's stream has ended, to go out with
   * the tail (it is in the digest already, so every way out of here sends it).
   */
  let held = "";
  const estimate = () =>
    estimatedUsage(countTextTokens(promptText(call.body)), relay.completionTokens);
  try {
    if (options.preamble) await write(relay.preface(options.preamble));
    const body = forwarded.response.body;
    const contentType = String(forwarded.response.headers["content-type"] ?? "");
    if (!/^text\/event-stream/i.test(contentType)) {
      await body.dump().catch(() => undefined);
      throw new GatewayError(
        "upstream_unavailable",
        "backend error: the backend answered a streamed request without an event stream",
      );
    }
    try {
      for await (const chunk of body) {
        // Filtered with the other streams' chunks of this turn (core/turn-batch.ts). Streams with
        // nothing to scan too: relayed at once instead, they cost 10% more CPU per call under
        // load (docs/benchmarks.md, "Issue 13, fourth pass: streamed answers ...").
        const text = await guardrailTurn.run(() => relay.push(chunk as Uint8Array));
        // The backend has already ended its stream: this was its last read, so these bytes go
        // out with the tail, in the one write that ends the response, instead of a write now.
        if (body.readableEnded && !relay.stopped) held = text;
        else await write(text);
        if (relay.stopped) break;
      }
    } catch (err) {
      if (!abort.signal.aborted) throw upstreamFailure(err);
      throw err;
    }
    // The rest and `[DONE]` go out only once metering and audit have completed.
    const tail = relay.stopped ? "" : relay.end();
    const stop = relay.refused ?? relay.broken;
    if (stop) {
      await write(held + tail);
      held = "";
      body.destroy();
      throw stop;
    }
    call.usage ??= estimate();
    call.outcome = "completed";
    call.status = 200;
    call.responseDigest = relay.responseDigest(true);
    if (call.captureContent) call.responseContent = { text: relay.captured };
    await ctx.pipeline.finish(call);
    end(held + tail);
  } catch (err) {
    const error = abort.signal.aborted ? undefined : toGatewayError(err);
    call.outcome = abort.signal.aborted
      ? "client_aborted"
      : relay.refused
        ? "blocked"
        : "stream_failed";
    call.usage ??= estimate();
    if (call.captureContent) call.responseContent = { text: relay.captured, interrupted: true };
    call.responseDigest = relay.responseDigest(false);
    const failure =
      error && error.code === "internal_error"
        ? new GatewayError("upstream_unavailable", "backend error: the stream was interrupted")
        : (error ?? new GatewayError("upstream_unavailable", "the client went away"));
    await failCall(ctx, call, failure);
    end(held + formatSseEvent(JSON.stringify(errorEnvelope(failure))));
  }
  return undefined;
}

/**
 * Resolves when the client has room again or has gone. Not `events.once` raced twice: the loser of
 * such a race stays armed and rejects, unobserved, if the response later emits "error".
 */
function drainedOrClosed(raw: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      raw.off("drain", done);
      raw.off("close", done);
      raw.off("error", done);
      resolve();
    };
    raw.on("drain", done);
    raw.on("close", done);
    raw.on("error", done);
  });
}
