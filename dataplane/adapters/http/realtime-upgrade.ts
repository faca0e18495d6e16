import { STATUS_CODES, type IncomingMessage, type Server } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocket, WebSocketServer } from "ws";
import type { AppContext } from "../../app/context.js";
import { errorEnvelope, GatewayError, toGatewayError } from "../../core/errors.js";
import type { Caller } from "../../core/identity.js";
import { newInferenceCall, type InferenceCall } from "../../core/inference-call.js";
import { checkIncomingHops } from "../../upstream/hop-marker.js";
import { RealtimeSession } from "../../realtime/realtime-session.js";
import { RealtimeSessions } from "../../realtime/realtime-sessions.js";
import { handshakeProblem } from "./realtime-handshake.js";
import { newRequestId, requestIdFrom } from "./request-id.js";

export const REALTIME_PATH = "/v1/realtime";
/** The browser convention: the key travels as a WebSocket subprotocol. */
const KEY_PROTOCOL = "openai-insecure-api-key.";

/** Answers a refused upgrade with a plain HTTP error in the envelope, then closes the socket. */
function refuse(socket: Duplex, requestId: string, err: GatewayError): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(errorEnvelope(err));
  const headers = [
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? "Error"}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-ID: ${requestId}`,
    "Connection: close",
    ...Object.entries(err.headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${headers.join("\r\n")}\r\n\r\n${body}`);
}

/** The bearer credential of an upgrade: the Authorization header, else the subprotocol list. */
function authorizationOf(req: IncomingMessage): string | undefined {
  if (req.headers.authorization) return req.headers.authorization;
  const protocols = String(req.headers["sec-websocket-protocol"] ?? "")
    .split(",")
    .map((p) => p.trim());
  const key = protocols.find((p) => p.startsWith(KEY_PROTOCOL))?.slice(KEY_PROTOCOL.length);
  return key ? `Bearer ${key}` : undefined;
}

/** Connects to the backend's realtime endpoint; rejects with a 502 the caller can be given. */
function connectBackend(ctx: AppContext, call: InferenceCall): Promise<WebSocket> {
  const target = call.route?.targets[0];
  if (!target) throw new GatewayError("model_not_found", "no backend for this model");
  call.target = target;
  const url = new URL(`${target.baseUrl.replace(/\/+$/, "")}/realtime`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  url.searchParams.set("model", target.upstreamModel);
  const headers: Record<string, string> = {
    "x-request-id": call.requestId,
    "openai-beta": "realtime=v1",
  };
  if (target.credential) headers.authorization = `Bearer ${target.credential}`;
  // Customer backends are reached under the destination policy; every call carries the hop marker.
  const outbound = ctx.upstream.outboundFor(target, call.hops, url.protocol === "wss:");
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, {
      headers: { ...headers, ...outbound.headers },
      ...(outbound.createConnection ? { createConnection: outbound.createConnection } : {}),
      handshakeTimeout: ctx.config.UPSTREAM_CONNECT_TIMEOUT_MS,
      maxPayload: ctx.config.REALTIME_MAX_MESSAGE_BYTES,
      perMessageDeflate: false,
    });
    const failed = () => {
      ws.terminate();
      reject(
        new GatewayError(
          "upstream_unavailable",
          "backend error: the realtime backend is unavailable",
        ),
      );
    };
    ws.once("open", () => {
      ws.off("error", failed);
      // Nothing is read until the session relays (the backend's session.created must not be lost).
      ws.pause();
      resolve(ws);
    });
    ws.once("error", failed);
    ws.once("unexpected-response", failed);
  });
}

/**
 * Serves /v1/realtime on the REST port: authenticates the upgrade (bearer header or the
 * `openai-insecure-api-key.` subprotocol), admits the session like a call (one request against the
 * limits, tier, budget; the model must have the realtime modality), connects the backend, and only
 * then completes the WebSocket handshake. Every refusal is an HTTP error in the envelope.
 */
export function attachRealtime(ctx: AppContext, server: Server): RealtimeSessions {
  const sessions = new RealtimeSessions();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: ctx.config.REALTIME_MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    handleProtocols: (protocols) => (protocols.has("realtime") ? "realtime" : false),
  });
  // A handshake the WebSocket server itself refuses (what handshakeProblem does not check, such as
  // a Sec-WebSocket-Protocol list it cannot parse) is answered in the envelope too.
  const requestIds = new WeakMap<IncomingMessage, string>();
  wss.on("wsClientError", (err: Error, socket: Duplex, req: IncomingMessage) => {
    const requestId = requestIds.get(req) ?? newRequestId();
    refuse(
      socket,
      requestId,
      new GatewayError("invalid_request", `invalid WebSocket handshake: ${err.message}`),
    );
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => undefined);
    const requestId = requestIdFrom(req.headers["x-request-id"], ctx.config.TRUST_REQUEST_ID);
    requestIds.set(req, requestId);
    upgrade(ctx, wss, sessions, req, socket, head, requestId).catch((err) => {
      ctx.logger.error({ request_id: requestId, err: String(err) }, "realtime upgrade failed");
      refuse(socket, requestId, toGatewayError(err));
    });
  });
  return sessions;
}

async function upgrade(
  ctx: AppContext,
  wss: WebSocketServer,
  sessions: RealtimeSessions,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  requestId: string,
): Promise<void> {
  const url = new URL(req.url ?? "/", "http://gateway");
  if (url.pathname !== REALTIME_PATH) {
    return refuse(
      socket,
      requestId,
      new GatewayError("route_not_found", `no WebSocket endpoint at ${url.pathname.slice(0, 200)}`),
    );
  }
  const malformed = handshakeProblem(req);
  if (malformed) return refuse(socket, requestId, malformed);
  let caller: Caller;
  try {
    caller = await ctx.authenticator.authenticate(authorizationOf(req));
  } catch (err) {
    return refuse(socket, requestId, toGatewayError(err));
  }
  const model = url.searchParams.get("model");
  if (!model || model.length > 256) {
    return refuse(
      socket,
      requestId,
      new GatewayError(
        "validation_failed",
        "query parameter model is required (at most 256 characters)",
        {
          detail: [{ loc: ["query", "model"], msg: "field required", type: "missing" }],
        },
      ),
    );
  }
  if (sessions.count(caller.customer.id) >= ctx.config.REALTIME_MAX_SESSIONS) {
    return refuse(
      socket,
      requestId,
      new GatewayError(
        "concurrency_limit_exceeded",
        `too many concurrent realtime sessions for this customer (at most ${ctx.config.REALTIME_MAX_SESSIONS}); close one and retry`,
        { headers: { "retry-after": "1" } },
      ),
    );
  }
  let hops: number;
  try {
    // A session the gateway opened to itself (a backend pointing back at it) stops here.
    hops = checkIncomingHops(req.headers, ctx.upstream.hopToken, ctx.config.UPSTREAM_MAX_HOPS);
  } catch (err) {
    return refuse(socket, requestId, toGatewayError(err));
  }
  const call = newInferenceCall({
    requestId,
    endpoint: "realtime",
    caller,
    requestedModel: model,
    body: { model },
    stream: true,
    startedAt: ctx.clock.now(),
    hops,
  });
  call.realtime = { sessionId: requestId, kind: "session" };
  let backend: WebSocket;
  try {
    await ctx.pipeline.admit(call);
    if (call.route?.model.modality !== "realtime") {
      throw new GatewayError(
        "model_not_found",
        `model '${model.slice(0, 100)}' does not serve realtime sessions`,
      );
    }
    backend = await connectBackend(ctx, call);
  } catch (err) {
    const error = toGatewayError(err);
    call.error = error;
    call.status = error.status;
    call.outcome =
      error.type === "guardrail_violation"
        ? "blocked"
        : error.status === 429
          ? "rate_limited"
          : error.status >= 502
            ? "upstream_error"
            : "refused";
    await ctx.pipeline.finish(call).catch(() => undefined);
    return refuse(socket, requestId, error);
  }
  // The WebSocket server completes the handshake at once (no asynchronous client check), and calls
  // back only if it did: a client gone meanwhile (its FIN may have come while the backend was
  // dialled) or a handshake it refuses (a subprotocol list it cannot parse) ends here, and so
  // must the backend's session and the call, or both would be left open and unrecorded.
  const gone = socket.destroyed || !socket.readable || !socket.writable;
  let relayed = false;
  if (!gone)
    wss.handleUpgrade(req, socket, head, (client) => {
      relayed = true;
      relay(ctx, sessions, caller, call, client, backend);
    });
  if (relayed) return;
  backend.terminate();
  if (gone) {
    socket.destroy();
    call.outcome = "client_aborted";
  } else {
    // Refused by the WebSocket server, and answered through its wsClientError (attachRealtime).
    call.outcome = "refused";
    call.error = new GatewayError("invalid_request", "the WebSocket handshake was refused");
    call.status = call.error.status;
  }
  await ctx.pipeline.finish(call).catch(() => undefined);
}

/** The admitted session, between the client's WebSocket and the backend's. */
function relay(
  ctx: AppContext,
  sessions: RealtimeSessions,
  caller: Caller,
  call: InferenceCall,
  client: WebSocket,
  backend: WebSocket,
): void {
  const session = new RealtimeSession(ctx, client, backend, call, {
    idleMs: ctx.config.REALTIME_IDLE_MS,
    maxSessionMs: ctx.config.REALTIME_MAX_SESSION_MS,
    pingMs: ctx.config.REALTIME_PING_MS,
    maxBufferedBytes: ctx.config.REALTIME_MAX_BUFFERED_BYTES,
  });
  sessions.add(caller.customer.id, session);
  void session.run().finally(() => sessions.remove(caller.customer.id, session));
}
