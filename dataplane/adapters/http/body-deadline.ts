import type { IncomingMessage } from "node:http";
import { PassThrough, type Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import { GatewayError } from "../../core/errors.js";
import { clientGoneError } from "./error-reply.js";

/** Bodies Fastify reads itself (the JSON parser): watched in place, not wrapped in a stream. */
const READ_BY_FRAMEWORK = /^application\/json\s*(?:;|$)/i;

/**
 * The request body as a stream that fails with 408 request_timeout when it has not arrived in
 * full within `ms` (a client trickling bytes cannot hold a connection and a handler open). The
 * connection is closed after the 408 is sent.
 *
 * A JSON body (read by Fastify's parser) is watched in place: a timer, and no stream of its own
 * (a PassThrough, its pipe and listeners cost about as much as the rest of reading the body).
 * Other bodies (uploads, which a handler reads as a stream) go through a PassThrough that the
 * timer fails.
 */
export function withBodyDeadline(
  payload: Readable,
  reply: FastifyReply,
  ms: number,
  contentType: string | undefined,
): Readable {
  if (contentType !== undefined && READ_BY_FRAMEWORK.test(contentType)) {
    watchInPlace(payload as IncomingMessage, reply, ms);
    return payload;
  }
  const out = new PassThrough();
  // The route's handler reads `out` only once it runs (after authentication, after it made its
  // temporary directory): a client gone before then fails `out` with nobody listening yet, which
  // would be an uncaught exception. The handler finds `out` failed when it starts reading.
  out.on("error", ignoreUntilRead);
  const timer = setTimeout(() => {
    reply.header("connection", "close");
    payload.unpipe(out);
    out.destroy(timeoutError(ms));
    reply.raw.once("finish", () => reply.raw.socket?.destroy());
  }, ms);
  timer.unref();
  const stop = () => clearTimeout(timer);
  out.once("end", stop);
  out.once("close", stop);
  reply.raw.once("finish", stop);
  const fail = (err: Error) => {
    stop();
    out.destroy(err);
  };
  payload.once("error", fail);
  // A request that ends before its body did (the client went away) fails the body, also when it
  // went before this hook ran: Node emits the request's 'error' only to listeners it has then.
  const cut = () => {
    if (!payload.readableEnded) fail(clientGoneError());
  };
  if (payload.destroyed) cut();
  else payload.once("close", cut);
  payload.pipe(out);
  return out;
}

function ignoreUntilRead(): void {
  // The reader sees the error itself (see withBodyDeadline).
}

function timeoutError(ms: number): GatewayError {
  return new GatewayError("request_timeout", `the request body did not arrive within ${ms} ms`);
}

/**
 * The deadline on the request itself. Fastify's body reader listens for the request's 'error'
 * and answers with that error, so the timer emits the 408 there: destroying the request instead
 * would close the socket before the answer could be sent. A body that has arrived (`complete`)
 * or a response that has ended clears it.
 */
function watchInPlace(request: IncomingMessage, reply: FastifyReply, ms: number): void {
  if (request.complete) return;
  const timer = setTimeout(() => {
    if (request.complete || request.listenerCount("error") === 0) return;
    reply.header("connection", "close");
    reply.raw.once("finish", () => reply.raw.socket?.destroy());
    request.emit("error", timeoutError(ms));
  }, ms);
  timer.unref();
  reply.raw.once("close", () => clearTimeout(timer));
}
