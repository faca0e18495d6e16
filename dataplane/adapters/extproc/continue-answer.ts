import {
  type CommonResponse,
  type DeepPartial,
  ProcessingResponse,
} from "../../../proto/gen/envoy/service/ext_proc/v3/external_processor.js";
import { setHeaders } from "./header-map.js";
import type { ForwardPlan } from "./request-admission.js";

type Phase = "requestHeaders" | "requestBody" | "responseHeaders" | "responseBody";

/** A CONTINUE answer for a phase, with optional mutations. */
export function continueAnswer(
  phase: Phase,
  common: DeepPartial<CommonResponse> = {},
): ProcessingResponse {
  return ProcessingResponse.fromPartial({
    response: { $case: phase, value: { response: common } },
  });
}

/** A CONTINUE answer for a trailers phase, with no mutation. */
export function continueTrailers(
  phase: "requestTrailers" | "responseTrailers",
): ProcessingResponse {
  return ProcessingResponse.fromPartial({ response: { $case: phase, value: {} } });
}

/**
 * A chunk of a STREAMED request body: every chunk is held, the whole (rewritten) body is released
 * at the end.
 */
export function holdRequestChunk(): ProcessingResponse {
  return continueAnswer("requestBody", {
    headerMutation: { removeHeaders: ["content-length"] },
    bodyMutation: { mutation: { $case: "clearBody", value: true } },
  });
}

/** The admitted request, rewritten for its backend and routed again. */
export function forwardRequestBody(plan: ForwardPlan): ProcessingResponse {
  return continueAnswer("requestBody", {
    headerMutation: { setHeaders: setHeaders(plan.headers) },
    bodyMutation: { mutation: { $case: "body", value: plan.body } },
    clearRouteCache: true,
  });
}
