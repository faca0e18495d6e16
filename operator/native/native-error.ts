import { GatewayError, isErrorCode, type ValidationIssue } from "../../dataplane/core/errors.js";

/** The error envelope {error:{message,type,code,detail?}} becomes a GatewayError with the same code. */
export function nativeError(status: number, text: string): GatewayError {
  let message = `native API answered ${status}`;
  let code = "";
  let detail: ValidationIssue[] | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    const error =
      typeof parsed === "object" && parsed !== null && "error" in parsed ? parsed.error : undefined;
    if (typeof error === "object" && error !== null) {
      if ("message" in error && typeof error.message === "string") message = error.message;
      if ("code" in error && typeof error.code === "string") code = error.code;
      if ("detail" in error && Array.isArray(error.detail))
        detail = error.detail as ValidationIssue[];
    }
    if (
      detail === undefined &&
      typeof parsed === "object" &&
      parsed !== null &&
      "detail" in parsed &&
      Array.isArray(parsed.detail)
    ) {
      detail = parsed.detail as ValidationIssue[];
    }
  } catch {
    // not JSON: keep the status-derived message
  }
  if (isErrorCode(code)) return new GatewayError(code, message, { detail });
  if (status === 404) return new GatewayError("resource_not_found", message);
  if (status === 409) return new GatewayError("resource_conflict", message);
  if (status === 422 || status === 400)
    return new GatewayError("validation_failed", message, { detail });
  if (status === 401) return new GatewayError("invalid_api_key", message);
  if (status === 403) return new GatewayError("insufficient_role", message);
  return new GatewayError("upstream_unavailable", message);
}

/** Human-readable text of a validation failure for a status condition. */
export function describeNativeError(err: GatewayError): string {
  if (!err.detail || err.detail.length === 0) return err.message;
  return `${err.message}: ${err.detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; ")}`;
}
