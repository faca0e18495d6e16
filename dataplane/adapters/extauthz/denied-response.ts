import { CheckResponse } from "../../../proto/gen/envoy/service/auth/v3/external_auth.js";
import type { StatusCode } from "../../../proto/gen/envoy/type/v3/http_status.js";
import { errorEnvelope, type GatewayError } from "../../core/errors.js";

/** google.rpc.Code for a denial: Envoy only needs "not OK"; the code helps its logs and stats. */
function rpcCodeFor(status: number): number {
  if (status === 401) return 16; // UNAUTHENTICATED
  if (status === 429 || status === 402) return 8; // RESOURCE_EXHAUSTED
  if (status === 404) return 5; // NOT_FOUND
  if (status >= 500) return 14; // UNAVAILABLE
  if (status === 403) return 7; // PERMISSION_DENIED
  return 3; // INVALID_ARGUMENT
}

/**
 * The one place a GatewayError becomes an ext_authz answer: a DeniedHttpResponse whose status,
 * headers (the error's own, e.g. Retry-After and X-RateLimit-* on 429, plus X-Request-ID) and JSON
 * envelope are what the REST façade would send.
 */
export function toDeniedResponse(err: GatewayError, requestId: string): CheckResponse {
  const headers: Record<string, string> = {
    ...err.headers,
    "content-type": "application/json; charset=utf-8",
    "x-request-id": requestId,
  };
  return CheckResponse.fromPartial({
    status: { code: rpcCodeFor(err.status), message: err.code },
    httpResponse: {
      $case: "deniedResponse",
      value: {
        status: { code: err.status as StatusCode },
        headers: Object.entries(headers).map(([key, value]) => ({ header: { key, value } })),
        body: JSON.stringify(errorEnvelope(err)),
      },
    },
  });
}
