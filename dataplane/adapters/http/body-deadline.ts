import { PassThrough, type Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import { GatewayError } from "../../core/errors.js";

/**
 * The request body as a stream that fails with 408 request_timeout when it has not arrived in
 * full within `ms` (a client trickling bytes cannot hold a connection and a handler open). The
 * connection is closed after the 408 is sent.
 *
 * A request whose body has already arrived in full (`complete`: the usual case, a small JSON body
 * in the same packets as its headers) cannot trickle: it is returned as it is, with no stream or
 * timer of its own.
 */
export function withBodyDeadline(payload: Readable, reply: FastifyReply, ms: number): Readable {
  if ((payload as Readable & { complete?: boolean }).complete === true) return payload;
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
