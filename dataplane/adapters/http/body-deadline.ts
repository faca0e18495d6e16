import { PassThrough, type Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import { GatewayError } from "../../core/errors.js";

/**
 * The request body as a stream that fails with 408 request_timeout when it has not arrived in
 * full within `ms` (a client trickling bytes cannot hold a connection and a handler open). The
 * connection is closed after the 408 is sent.
 */
export function withBodyDeadline(payload: Readable, reply: FastifyReply, ms: number): Readable {
  const out = new PassThrough();
  const timer = setTimeout(() => {
    reply.header("connection", "close");
    payload.unpipe(out);
    out.destroy(
      new GatewayError("request_timeout", `the request body did not arrive within ${ms} ms`),
    );
    reply.raw.once("finish", () => reply.raw.socket?.destroy());
  }, ms);
  timer.unref();
  const stop = () => clearTimeout(timer);
  out.once("end", stop);
  out.once("close", stop);
  reply.raw.once("finish", stop);
  payload.once("error", (err) => {
    stop();
    out.destroy(err);
  });
  payload.pipe(out);
  return out;
}
