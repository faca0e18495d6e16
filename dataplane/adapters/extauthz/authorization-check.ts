import { INFERENCE_ROLES, requireRole } from "../../core/permissions.js";
import type { CheckRequest } from "../../../proto/gen/envoy/service/auth/v3/external_auth.js";
import { CheckResponse } from "../../../proto/gen/envoy/service/auth/v3/external_auth.js";
import type { AppContext } from "../../app/context.js";
import { toGatewayError } from "../../core/errors.js";
import type { Caller } from "../../core/identity.js";
import { newInferenceCall } from "../../core/inference-call.js";
import { requestIdFrom } from "../http/request-id.js";
import { declaredClassificationOf } from "../../core/declared-classification.js";
import { routingHeaders } from "../extproc/request-admission.js";
import { isUndecided, undecidedError, withinDeadline } from "../grpc/decision-deadline.js";
import type { EnvoyAdapterOptions } from "../grpc/envoy-options.js";
import { inferenceEndpointOf, isInferencePath, isPublicPath } from "../grpc/envoy-paths.js";
import { toDeniedResponse } from "./denied-response.js";

/** A header sent only by the caller that lets the tier check run here instead of in ext_proc. */
export const MODEL_HEADER = "x-evident-model";

/** The request headers of a CheckRequest, lower-case names, from `headers` or `header_map`. */
function headersOf(request: CheckRequest): Record<string, string> {
  const http = request.attributes?.request?.http;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(http?.headers ?? {})) out[name.toLowerCase()] = value;
  for (const h of http?.headerMap?.headers ?? []) {
    const value = h.rawValue.length > 0 ? h.rawValue.toString("utf8") : h.value;
    const name = h.key.toLowerCase();
    out[name] = out[name] === undefined ? value : `${out[name]},${value}`;
  }
  return out;
}

/**
 * Authorization/Check: everything that can be decided from the headers alone. The key is
 * authenticated; on inference paths the tier check runs here when the caller names the model in
 * `x-evident-model` (else ext_proc does it with the body); rate limits need the body's token
 * estimate, so they run in ext_proc's request-body phase, exactly as on REST.
 */
export async function authorizationCheck(
  ctx: AppContext,
  options: EnvoyAdapterOptions,
  request: CheckRequest,
): Promise<CheckResponse> {
  const http = request.attributes?.request?.http;
  const path = http?.path ?? "/";
  const headers = headersOf(request);
  const requestId = requestIdFrom(headers["x-request-id"], ctx.config.TRUST_REQUEST_ID);
  if (isPublicPath(path)) return allow({ "x-request-id": requestId }, []);
  try {
    const caller = await withinDeadline(
      ctx.authenticator.authenticate(headers.authorization),
      options.decisionTimeoutMs,
    );
    const upstreamHeaders: Record<string, string> = {
      "x-request-id": requestId,
      "x-evident-customer-id": caller.customer.id,
    };
    const classification = declaredClassificationOf(headers["x-data-classification"]);
    if (classification !== undefined) upstreamHeaders["x-evident-classification"] = classification;
    // A key whose role may not call models (operator) stops here on inference paths.
    if (isInferencePath(path)) requireRole(caller, INFERENCE_ROLES, "call models");
    const model = headers[MODEL_HEADER];
    if (isInferencePath(path) && model !== undefined && model !== "") {
      await checkModelAccess(ctx, caller, path, model, requestId, routingHeaders(headers));
    }
    const remove = options.removeAuthorizationIn === "ext_authz" ? ["authorization"] : [];
    return allow(upstreamHeaders, remove);
  } catch (err) {
    if (isUndecided(err)) {
      ctx.logger.error({ request_id: requestId, err: String(err) }, "ext_authz could not decide");
      if (options.failureMode === "open") return allow({ "x-request-id": requestId }, []);
      return toDeniedResponse(undecidedError(err), requestId);
    }
    return toDeniedResponse(toGatewayError(err), requestId);
  }
}

/** The route stage's own checks (unknown model 404, tier 403), run on a headers-only call. */
async function checkModelAccess(
  ctx: AppContext,
  caller: Caller,
  path: string,
  model: string,
  requestId: string,
  requestHeaders: Record<string, string>,
): Promise<void> {
  const route = ctx.pipeline.stages.find((s) => s.name === "route");
  const call = newInferenceCall({
    requestId,
    endpoint: inferenceEndpointOf(path) ?? "chat.completions",
    caller,
    requestedModel: model,
    body: { model },
    stream: false,
    startedAt: ctx.clock.now(),
    requestHeaders,
  });
  await route?.beforeForward?.(call);
}

/** Headers only we may set: a caller's own copies never reach the upstream. */
const IDENTITY_HEADERS = ["x-evident-customer-id", "x-evident-classification"];

function allow(headers: Record<string, string>, extraRemove: string[]): CheckResponse {
  const remove = [...IDENTITY_HEADERS.filter((h) => headers[h] === undefined), ...extraRemove];
  return CheckResponse.fromPartial({
    status: { code: 0 },
    httpResponse: {
      $case: "okResponse",
      value: {
        headers: Object.entries(headers).map(([key, value]) => ({ header: { key, value } })),
        headersToRemove: remove,
      },
    },
  });
}
