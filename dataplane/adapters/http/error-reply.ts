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
    case "FST_ERR_MAX_PARAM_LENGTH":
      return new GatewayError("uri_too_long", "a path segment is longer than 100 characters");
    case "FST_ERR_BAD_URL":
      return new GatewayError("invalid_request", "the URL is not valid (bad percent-encoding)");
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
      return new GatewayError("invalid_json", "request body is not valid JSON");
  }
  // Node's "aborted" (ECONNRESET) on a request whose client went away while its body was read.
  if (e.code === "ECONNRESET" && err instanceof Error && err.message === "aborted") {
    return clientGoneError();
  }
  if (err instanceof SyntaxError && e.statusCode === 400) {
    return new GatewayError("invalid_json", "request body is not valid JSON");
  }
  if (e.statusCode === 400 && typeof e.code === "string" && e.code.startsWith("FST_")) {
    return new GatewayError("invalid_request", "malformed request");
  }
  return toGatewayError(err);
}

/** A request whose client went away before its body had arrived (nobody gets the answer). */
export function clientGoneError(): GatewayError {
  return new GatewayError(
    "invalid_request",
    "the client closed the connection before the body arrived",
  );
}

/** The one place an HTTP error response is written. */
export function sendError(reply: FastifyReply, err: GatewayError): FastifyReply {
  reply.status(err.status);
  for (const [name, value] of Object.entries(err.headers)) reply.header(name, value);
  reply.header("content-type", "application/json; charset=utf-8");
  return reply.send(errorEnvelope(err));
}

/**
 * Node's `clientError` (a request the HTTP parser refused before any route saw it: oversized
 * headers, a bad request line, a header timeout) answered in the envelope with a fresh request id.
 */
export function clientErrorResponse(err: { code?: string }, requestId: string): string | undefined {
  if (err.code === "ECONNRESET") return undefined;
  const mapped =
    err.code === "HPE_HEADER_OVERFLOW"
      ? new GatewayError("request_headers_too_large", "request headers are larger than the limit")
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? new GatewayError("request_timeout", "the request was not received in time")
        : new GatewayError("invalid_request", "malformed HTTP request");
  const body = JSON.stringify(errorEnvelope(mapped));
  return (
    `HTTP/1.1 ${mapped.status} ${STATUS_TEXT[mapped.status] ?? "Error"}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-ID: ${requestId}\r\n` +
    `Connection: close\r\n\r\n${body}`
  );
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large",
};
