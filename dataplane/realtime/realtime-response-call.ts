import type { AppContext } from "../app/context.js";
import type { GatewayError } from "../core/errors.js";
import { newInferenceCall, type InferenceCall } from "../core/inference-call.js";
import { responseUsage, type RealtimeEvent } from "./realtime-events.js";

/**
 * The call one realtime response is admitted, metered and audited as: the session's caller and
 * model, numbered `<session request id>.<sequence>`, limited by the response's
 * `max_response_output_tokens` when it sets one.
 */
export function newResponseCall(
  ctx: AppContext,
  session: InferenceCall,
  sequence: number,
  event: RealtimeEvent | undefined,
): InferenceCall {
  const response = (event?.response ?? {}) as Record<string, unknown>;
  const max = response.max_response_output_tokens;
  const call = newInferenceCall({
    requestId: `${session.requestId}.${sequence}`,
    endpoint: "realtime",
    caller: session.caller,
    requestedModel: session.requestedModel,
    body: {
      model: session.requestedModel,
      ...(typeof max === "number" ? { max_tokens: max } : {}),
    },
    stream: true,
    declaredClassification: session.declaredClassification,
    startedAt: ctx.clock.now(),
  });
  call.realtime = { sessionId: session.requestId, kind: "response" };
  return call;
}

/** The tokens of a session's responses, summed for the session's own record. */
export interface UsageTotals {
  prompt: number;
  completion: number;
  total: number;
}

/** A `response.done`'s usage: the response's call is metered with it, the session's totals grow. */
export function meterResponseUsage(
  call: InferenceCall,
  event: RealtimeEvent,
  totals: UsageTotals,
): void {
  const usage = responseUsage(event);
  if (usage) {
    call.usage = {
      promptTokens: usage.prompt,
      completionTokens: usage.completion,
      totalTokens: usage.total,
      source: "upstream",
    };
    totals.prompt += usage.prompt;
    totals.completion += usage.completion;
    totals.total += usage.total;
  }
}

/** Finishes a realtime call (a response or the session) with its outcome: metered and audited. */
export async function finishRealtimeCall(
  ctx: AppContext,
  call: InferenceCall,
  outcome: NonNullable<InferenceCall["outcome"]>,
  error: GatewayError | undefined,
): Promise<void> {
  call.outcome ??= outcome;
  call.error = error;
  call.status = error ? error.status : 200;
  try {
    await ctx.pipeline.finish(call);
  } catch (err) {
    ctx.logger.error(
      { request_id: call.requestId, err: String(err) },
      "realtime post-call processing failed",
    );
  }
}
