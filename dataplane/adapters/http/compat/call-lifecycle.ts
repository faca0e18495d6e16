import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../../app/context.js";
import { GatewayError, toGatewayError } from "../../../core/errors.js";
import { declaredClassificationOf } from "../../../core/declared-classification.js";
import type { ClassificationLevel } from "../../../core/identity.js";
import type { CallOutcome, InferenceCall } from "../../../core/inference-call.js";

/** The classification a caller declared (see core/declared-classification.ts). */
export function declaredClassification(
  request: FastifyRequest,
  body: Record<string, unknown>,
): ClassificationLevel | undefined {
  const header = request.headers["x-data-classification"];
  return declaredClassificationOf(Array.isArray(header) ? header[0] : header, body);
}

/** The body to send upstream: our extension removed, the model name rewritten. */
export function upstreamBody(
  body: Record<string, unknown>,
  upstreamModel: string,
): Record<string, unknown> {
  const { evident: _ours, ...rest } = body;
  return { ...rest, model: upstreamModel };
}

export function outcomeOf(err: GatewayError): CallOutcome {
  if (err.type === "guardrail_violation") return "blocked";
  if (err.type === "rate_limit_error" || err.code === "budget_exceeded") return "rate_limited";
  if (err.code === "upstream_unavailable") return "upstream_error";
  return "refused";
}

/** Aborts when the client goes away before the response is complete. */
export function clientAbortSignal(reply: FastifyReply): AbortController {
  const controller = new AbortController();
  reply.raw.on("close", () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller;
}

/**
 * Records a failed call (metering, audit) and returns the error to send. Post-call processing
 * failing on top of a failed call keeps the original error for the caller.
 */
export async function failCall(
  ctx: AppContext,
  call: InferenceCall,
  err: unknown,
): Promise<GatewayError> {
  const base = toGatewayError(err);
  // The call's own headers (rate-limit state) go on error responses too.
  const error = Object.keys(call.responseHeaders).length
    ? new GatewayError(base.code, base.message, {
        detail: base.detail,
        headers: { ...call.responseHeaders, ...base.headers },
        cause: base.cause,
      })
    : base;
  call.error = error;
  call.status = error.status;
  call.outcome ??= outcomeOf(error);
  try {
    await ctx.pipeline.finish(call);
  } catch (finishErr) {
    ctx.logger.error(
      { request_id: call.requestId, err: String(finishErr) },
      "post-call processing failed",
    );
  }
  return error;
}
