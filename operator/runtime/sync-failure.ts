import { GatewayError } from "../../dataplane/core/errors.js";
import { describeNativeError } from "../native/native-error.js";
import type { SyncResult, Status } from "./controller.js";

/**
 * How a failed native API call shows on a CR: a validation error (400/422) is permanent until the
 * spec changes, so it becomes Synced=False/ValidationFailed without a retry storm (the periodic
 * resync still retries); anything else is Synced=False and retried with backoff.
 */
export function nativeFailure(err: unknown, status: Status): SyncResult {
  if (err instanceof GatewayError && (err.status === 422 || err.status === 400)) {
    const message = describeNativeError(err);
    return {
      status,
      conditions: [
        { type: "Synced", status: "False", reason: "ValidationFailed", message },
        { type: "Ready", status: "False", reason: "ValidationFailed", message },
      ],
    };
  }
  const reason = err instanceof GatewayError && err.status === 409 ? "Conflict" : "SyncFailed";
  const message =
    err instanceof GatewayError
      ? describeNativeError(err)
      : "unexpected error talking to the native API";
  return {
    status,
    conditions: [
      { type: "Synced", status: "False", reason, message },
      { type: "Ready", status: "False", reason, message },
    ],
    retry: err,
  };
}
