/**
 * How the Envoy adapters behave where a deployment has a choice: ENVOY_FAILURE_MODE,
 * ENVOY_REMOVE_AUTHORIZATION_IN and ENVOY_DECISION_TIMEOUT_MS (see docs/envoy.md).
 */
export interface EnvoyAdapterOptions {
  /**
   * When the core cannot decide (store or Redis unreachable, an internal error, no answer within
   * `decisionTimeoutMs`): "closed" denies with 503 service_unavailable; "open" lets the request
   * through unchecked (and unaudited). Policy refusals are never affected.
   */
  failureMode: "closed" | "open";
  /**
   * Where the caller's Authorization header is removed before the upstream: "ext_proc" (default:
   * ext_proc needs it to authenticate, and removes it in its request-headers answer), "ext_authz"
   * (deployments that run ext_authz without ext_proc), or "never".
   */
  removeAuthorizationIn: "ext_proc" | "ext_authz" | "never";
  /** Longest time one decision may take; keep it below Envoy's ext_authz timeout and ext_proc
   * message_timeout so that Envoy gets our answer rather than a timeout. */
  decisionTimeoutMs: number;
}

export const DEFAULT_ENVOY_OPTIONS: EnvoyAdapterOptions = {
  failureMode: "closed",
  removeAuthorizationIn: "ext_proc",
  decisionTimeoutMs: 1500,
};
