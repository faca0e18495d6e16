import type { IncomingMessage } from "node:http";
import { GatewayError } from "../../core/errors.js";

/** RFC 6455's Sec-WebSocket-Key: 16 bytes in base64. */
const KEY = /^[+/0-9A-Za-z]{22}==$/;

/**
 * What is wrong with a WebSocket upgrade request, checked before the session is admitted or a
 * backend dialled (the same checks the WebSocket server makes when it completes the handshake,
 * answered here in the error envelope): the method, the Upgrade header, the key and the version.
 */
export function handshakeProblem(req: IncomingMessage): GatewayError | undefined {
  if (req.method !== "GET")
    return new GatewayError("method_not_allowed", "a WebSocket upgrade must be a GET request", {
      headers: { allow: "GET" },
    });
  if (String(req.headers.upgrade ?? "").toLowerCase() !== "websocket")
    return new GatewayError("invalid_request", "the Upgrade header must be 'websocket'");
  const key = req.headers["sec-websocket-key"];
  if (typeof key !== "string" || !KEY.test(key))
    return new GatewayError("invalid_request", "missing or invalid Sec-WebSocket-Key header");
  const version = req.headers["sec-websocket-version"];
  if (version !== "13" && version !== "8")
    return new GatewayError("invalid_request", "missing or invalid Sec-WebSocket-Version header", {
      headers: { "sec-websocket-version": "13, 8" },
    });
  return undefined;
}
