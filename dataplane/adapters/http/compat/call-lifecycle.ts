import type { FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../../app/context.js";
import { GatewayError, toGatewayError } from "../../../core/errors.js";
import { CLASSIFICATION_LEVELS, type ClassificationLevel } from "../../../core/identity.js";
import type { CallOutcome, InferenceCall } from "../../../core/inference-call.js";

/** The classification a caller declared: `X-Data-Classification` header, else `evident.classification`. */
export function declaredClassification(
  request: FastifyRequest,
  body: Record<string, unknown>,
): ClassificationLevel | undefined {
  const header = request.headers["x-data-classification"];
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase();
  if (value !== undefined && value !== "") {
    if (!(CLASSIFICATION_LEVELS as readonly string[]).includes(value)) {
      throw new GatewayError(
        "validation_failed",
        `X-Data-Classification must be one of ${CLASSIFICATION_LEVELS.join(", ")}`,
        {
          detail: [
            { loc: ["header", "x-data-classification"], msg: "unknown level", type: "enum" },
          ],
        },
      );
    }
    return value as ClassificationLevel;
  }
  const ext = body.evident as { classification?: ClassificationLevel } | undefined;
  return ext?.classification;
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
  if (err.code === "rate_limit_exceeded" || err.code === "budget_exceeded") return "rate_limited";
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

/** Relays an upstream 4xx as the backend sent it (OpenAI-compatible backends send our envelope). */
export function upstreamClientError(
  status: number,
  text: string,
): { status: number; body: unknown } {
  try {
    const parsed = JSON.parse(text) as {
      error?: { message?: unknown; type?: unknown; code?: unknown };
    };
    if (parsed.error && typeof parsed.error.message === "string") {
      return {
        status,
        body: {
          error: {
            message: parsed.error.message,
            type:
              typeof parsed.error.type === "string" ? parsed.error.type : "invalid_request_error",
            code: typeof parsed.error.code === "string" ? parsed.error.code : "upstream_rejected",
          },
        },
      };
    }
  } catch {
    // not JSON: fall through
  }
  return {
    status,
    body: {
      error: {
        message: `backend rejected the request (${status})`,
        type: "invalid_request_error",
        code: "upstream_rejected",
      },
    },
  };
}
