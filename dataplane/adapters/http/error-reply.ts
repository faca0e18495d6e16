import type { FastifyReply } from "fastify";
import { errorEnvelope, GatewayError, toGatewayError } from "../../core/errors.js";

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
}

/** Framework errors (parsing, limits) become our codes; everything else goes through core. */
export function fromFrameworkError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const e = (typeof err === "object" && err !== null ? err : {}) as FastifyLikeError;
  switch (e.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return new GatewayError("request_too_large", "request body is larger than the limit");
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return new GatewayError(
        "unsupported_media_type",
        "unsupported Content-Type: send application/json",
      );
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return new GatewayError("invalid_json", "request body is empty; a JSON body is required");
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new GatewayError("invalid_json", "request body is not valid JSON");
  }
  if (err instanceof SyntaxError && e.statusCode === 400) {
    return new GatewayError("invalid_json", "request body is not valid JSON");
  }
  if (e.statusCode === 400 && typeof e.code === "string" && e.code.startsWith("FST_")) {
    return new GatewayError("invalid_request", "malformed request");
  }
  return toGatewayError(err);
}

/** The one place an HTTP error response is written. */
export function sendError(reply: FastifyReply, err: GatewayError): FastifyReply {
  reply.status(err.status);
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  reply.header("content-type", "application/json; charset=utf-8");
  return reply.send(errorEnvelope(err));
}
