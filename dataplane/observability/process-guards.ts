import type { Logger } from "pino";
import { currentRequestScope } from "./request-scope.js";

export interface EscapedErrorCounter {
  inc(labels: { kind: "unhandled_rejection" | "uncaught_exception" }): void;
}

/**
 * The one policy for errors that escape a request (or a timer, stream or listener): they never end
 * the process. Each is logged with the request id of the request whose handling started it (when
 * there is one), counted, and that request is ended as a failure. Every known path handles its own
 * errors; this is the net under them, so that one caller cannot stop the gateway for everyone.
 */
export function installProcessGuards(logger: Logger, counter?: EscapedErrorCounter): () => void {
  const onRejection = (reason: unknown) => escaped("unhandled_rejection", reason);
  const onException = (err: unknown) => escaped("uncaught_exception", err);
  function escaped(kind: "unhandled_rejection" | "uncaught_exception", err: unknown): void {
    const scope = currentRequestScope();
    counter?.inc({ kind });
    logger.error(
      { request_id: scope?.requestId ?? null, kind, err: describe(err) },
      "error escaped its handler; the process keeps running",
    );
    try {
      scope?.fail();
    } catch {
      // the request is already gone
    }
  }
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  return () => {
    process.off("unhandledRejection", onRejection);
    process.off("uncaughtException", onException);
  };
}

function describe(err: unknown): { name: string; message: string; stack?: string } {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { name: "unknown", message: String(err) };
}
