import { GatewayError } from "../../dataplane/core/errors.js";

/** Maps an HTTP status from the Kubernetes API to the project's one error type. */
export function kubeStatusError(status: number, message: string, cause?: unknown): GatewayError {
  const options = cause === undefined ? {} : { cause };
  if (status === 404) return new GatewayError("resource_not_found", message, options);
  if (status === 409) return new GatewayError("resource_conflict", message, options);
  if (status === 422) return new GatewayError("validation_failed", message, options);
  if (status === 400) return new GatewayError("invalid_request", message, options);
  if (status === 401 || status === 403)
    return new GatewayError("insufficient_role", message, options);
  return new GatewayError("service_unavailable", message, options);
}

export function isNotFound(err: unknown): boolean {
  return err instanceof GatewayError && err.code === "resource_not_found";
}

export function isConflict(err: unknown): boolean {
  return err instanceof GatewayError && err.code === "resource_conflict";
}
