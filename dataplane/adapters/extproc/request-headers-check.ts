import type { AppContext } from "../../app/context.js";
import { GatewayError } from "../../core/errors.js";
import type { Endpoint } from "../../core/inference-call.js";
import { pathOnly } from "../grpc/envoy-paths.js";

/**
 * What the REST façade refuses before reading a body, refused the same way from the request
 * headers ext_proc sees (after authentication, as on REST).
 */
export function checkInferenceRequestHeaders(
  ctx: AppContext,
  endpoint: Endpoint,
  headers: Record<string, string>,
  endOfStream: boolean,
): void {
  if (endpoint === "audio.transcriptions") {
    throw new GatewayError(
      "invalid_request",
      "audio transcriptions are served by the REST façade: route /v1/audio/ to the data plane's HTTP port",
    );
  }
  const method = (headers[":method"] ?? "POST").toUpperCase();
  if (method !== "POST") {
    throw new GatewayError(
      "method_not_allowed",
      `method ${method} is not allowed on ${pathOnly(headers[":path"] ?? "/")}; allowed: POST`,
      { headers: { allow: "POST" } },
    );
  }
  if (endOfStream) {
    throw new GatewayError("invalid_json", "request body is empty; a JSON body is required");
  }
  const contentType = (headers["content-type"] ?? "").toLowerCase();
  if (!contentType.startsWith("application/json")) {
    throw new GatewayError(
      "unsupported_media_type",
      "unsupported Content-Type: send application/json",
    );
  }
  if (Number(headers["content-length"] ?? 0) > ctx.config.MAX_BODY_BYTES) {
    throw new GatewayError("request_too_large", "request body is larger than the limit");
  }
}
