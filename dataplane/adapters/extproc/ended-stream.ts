import type { AppContext } from "../../app/context.js";
import { GatewayError } from "../../core/errors.js";
import type { InferenceCall } from "../../core/inference-call.js";
import { upstreamFailure } from "../../upstream/upstream-failure.js";
import { failCall } from "../http/compat/call-lifecycle.js";
import type { ResponseRelay } from "./response-relay.js";

/**
 * Finishes a call that is still open when Envoy ends the stream: "end" after the exchange (or with
 * phases skipped), "reset" if the caller went away. The outcome says how far the exchange got.
 */
export async function finishEndedStream(
  ctx: AppContext,
  call: InferenceCall,
  response: ResponseRelay | undefined,
  how: "end" | "reset",
  finishOnce: (work: () => Promise<unknown>) => Promise<void>,
): Promise<void> {
  if (how === "reset") {
    call.outcome = "client_aborted";
    await finishOnce(() =>
      failCall(ctx, call, new GatewayError("upstream_unavailable", "the client went away")),
    );
    return;
  }
  if (response?.sawBody === true) {
    // Part of the body came and the exchange ended before its end: the backend cut it.
    call.outcome = response.kind === "sse" ? "stream_failed" : "upstream_error";
    const cut = upstreamFailure(new Error("the response was cut before its end"));
    await finishOnce(() => failCall(ctx, call, cut));
    return;
  }
  if (response !== undefined && (call.status ?? 200) < 400) {
    // The response body was not sent to us (response_body_mode NONE): nothing left to scan.
    call.outcome = "completed";
    call.status ??= 200;
    await finishOnce(() => ctx.pipeline.finish(call));
    return;
  }
  const reason = "backend error: the exchange ended without a response";
  await finishOnce(() => failCall(ctx, call, new GatewayError("upstream_unavailable", reason)));
}
