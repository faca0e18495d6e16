import { ProcessingResponse } from "../../../proto/gen/envoy/service/ext_proc/v3/external_processor.js";
import type { StatusCode } from "../../../proto/gen/envoy/type/v3/http_status.js";
import { errorEnvelope, type GatewayError } from "../../core/errors.js";
import type { InferenceCall } from "../../core/inference-call.js";
import type { CachedAnswer } from "../http/compat/relay-cached.js";
import { setHeaders } from "./header-map.js";

/**
 * The one place a GatewayError becomes an ext_proc answer: an ImmediateResponse with the status,
 * headers (the error's own, e.g. Retry-After / X-RateLimit-* on 429, plus X-Request-ID) and JSON
 * envelope the REST façade would send.
 */
export function toImmediateResponse(err: GatewayError, requestId: string): ProcessingResponse {
  const headers: Record<string, string> = {
    ...err.headers,
    "content-type": "application/json; charset=utf-8",
    "x-request-id": requestId,
  };
  return ProcessingResponse.fromPartial({
    response: {
      $case: "immediateResponse",
      value: {
        status: { code: err.status as StatusCode },
        headers: { setHeaders: setHeaders(headers) },
        body: Buffer.from(JSON.stringify(errorEnvelope(err)), "utf8"),
        details: `evident_${err.code}`,
      },
    },
  });
}

/**
 * A response-cache hit as an ext_proc answer: status 200 with the call's headers (X-Evident-Cache,
 * X-RateLimit-*), the content type REST would send, and the stored answer as the body.
 */
export function toCachedImmediateResponse(
  answer: CachedAnswer,
  call: InferenceCall,
): ProcessingResponse {
  const headers: Record<string, string> = {
    ...call.responseHeaders,
    "content-type": answer.contentType,
    "x-request-id": call.requestId,
  };
  if (call.stream) headers["cache-control"] = "no-cache";
  return ProcessingResponse.fromPartial({
    response: {
      $case: "immediateResponse",
      value: {
        status: { code: 200 as StatusCode },
        headers: { setHeaders: setHeaders(headers) },
        body: Buffer.from(answer.body, "utf8"),
        details: "evident_served_from_cache",
      },
    },
  });
}
