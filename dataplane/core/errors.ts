/**
 * The one error type of the gateway. Every failure that reaches a caller is a GatewayError with a
 * code from the closed set below; each transport maps it to the wire in exactly one function.
 */

export interface ErrorKind {
  readonly status: number;
  readonly type: string;
}

const KINDS = {
  // 400
  invalid_json: { status: 400, type: "invalid_request_error" },
  invalid_request: { status: 400, type: "invalid_request_error" },
  content_safety_block: { status: 400, type: "guardrail_violation" },
  prompt_injection_detected: { status: 400, type: "guardrail_violation" },
  pii_policy_block: { status: 400, type: "guardrail_violation" },
  classification_mismatch: { status: 400, type: "guardrail_violation" },
  custom_rule_block: { status: 400, type: "guardrail_violation" },
  // 401 / 402 / 403
  invalid_api_key: { status: 401, type: "authentication_error" },
  budget_exceeded: { status: 402, type: "budget_error" },
  tier_restricted: { status: 403, type: "permission_error" },
  insufficient_role: { status: 403, type: "permission_error" },
  /** A RAG collection classified above the key's classification level. */
  classification_restricted: { status: 403, type: "permission_error" },
  // 404 / 405
  route_not_found: { status: 404, type: "not_found_error" },
  model_not_found: { status: 404, type: "not_found_error" },
  resource_not_found: { status: 404, type: "not_found_error" },
  method_not_allowed: { status: 405, type: "invalid_request_error" },
  // 409
  model_version_exists: { status: 409, type: "conflict_error" },
  model_has_active_deployments: { status: 409, type: "conflict_error" },
  invalid_state_transition: { status: 409, type: "conflict_error" },
  resource_conflict: { status: 409, type: "conflict_error" },
  // 408 / 413 / 414 / 415 / 422 / 429 / 431
  request_timeout: { status: 408, type: "invalid_request_error" },
  request_too_large: { status: 413, type: "invalid_request_error" },
  /** A RAG upload would take the customer's stored bytes past the tier's cap. */
  storage_cap_exceeded: { status: 413, type: "invalid_request_error" },
  uri_too_long: { status: 414, type: "invalid_request_error" },
  unsupported_media_type: { status: 415, type: "invalid_request_error" },
  upgrade_required: { status: 426, type: "invalid_request_error" },
  validation_failed: { status: 422, type: "validation_error" },
  rate_limit_exceeded: { status: 429, type: "rate_limit_error" },
  /** The customer's cap on concurrent upstream calls (by tier) is reached. */
  concurrency_limit_exceeded: { status: 429, type: "rate_limit_error" },
  request_headers_too_large: { status: 431, type: "invalid_request_error" },
  // 5xx
  internal_error: { status: 500, type: "server_error" },
  upstream_unavailable: { status: 502, type: "backend_error" },
  service_unavailable: { status: 503, type: "server_error" },
  /** The store (Postgres) could not be reached to make a decision. */
  store_unavailable: { status: 503, type: "server_error" },
  /** A call the gateway sent came back to it (a backend points at the gateway), or too many hops. */
  loop_detected: { status: 508, type: "invalid_request_error" },
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof KINDS;

/** One item of a 422 body's `detail` array (the spec's HTTPValidationError). */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface GatewayErrorOptions {
  detail?: ValidationIssue[];
  /** Extra response headers, e.g. Retry-After on 429. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string;
  readonly detail: ValidationIssue[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GatewayError";
    this.code = code;
    this.status = KINDS[code].status;
    this.type = KINDS[code].type;
    this.detail = options.detail;
    this.headers = options.headers ?? {};
  }
}

export interface ErrorEnvelope {
  error: { message: string; type: string; code: string; detail?: ValidationIssue[] };
}

/** The JSON body every transport sends for an error. */
export function errorEnvelope(err: GatewayError): ErrorEnvelope {
  const body: ErrorEnvelope = { error: { message: err.message, type: err.type, code: err.code } };
  if (err.detail) body.error.detail = err.detail;
  return body;
}

/** Anything thrown becomes a GatewayError; unknown failures never leak their message or stack. */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError("internal_error", "internal error", { cause: err });
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(KINDS, value);
}
