import type { InferenceCall } from "../../core/inference-call.js";
import type { ResponseKind } from "./response-relay.js";

/**
 * How the backend's answer is relayed. A backend's error answer (4xx or 5xx) is relayed with its
 * status; a streamed request answered without an event stream gets an error event, never an empty
 * success.
 */
export function responseKindOf(
  call: InferenceCall,
  status: number,
  headers: Record<string, string>,
): ResponseKind {
  const contentType = (headers["content-type"] ?? "").toLowerCase();
  const sse = contentType.startsWith("text/event-stream");
  return status >= 400 ? "upstream_error" : call.stream && !sse ? "not_sse" : sse ? "sse" : "json";
}

/** The headers the gateway sets on the answer relayed to the caller. */
export function relayedResponseHeaders(
  call: InferenceCall,
  kind: ResponseKind,
): Record<string, string> {
  const set: Record<string, string> = { ...call.responseHeaders, "x-request-id": call.requestId };
  if (kind === "sse" || kind === "not_sse")
    Object.assign(set, { "cache-control": "no-cache", "x-accel-buffering": "no" });
  if (kind === "not_sse") set["content-type"] = "text/event-stream; charset=utf-8";
  else if (kind !== "sse") set["content-type"] = "application/json; charset=utf-8";
  return set;
}
