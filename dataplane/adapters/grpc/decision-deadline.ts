import { GatewayError, toGatewayError } from "../../core/errors.js";

/**
 * Whether an error means "the core could not decide" (a store down, a bug, a timeout) rather than
 * a decision. Only these are subject to the failure mode; a 503 the core chose itself (e.g. the
 * limits' own fail mode with Redis down, or a saturated audit spool) is a decision.
 */
export function isUndecided(err: unknown): boolean {
  const code = toGatewayError(err).code;
  return code === "internal_error" || code === "store_unavailable";
}

/** The error Envoy gets when the core could not decide and the failure mode is closed. */
export function undecidedError(cause: unknown): GatewayError {
  return new GatewayError(
    "service_unavailable",
    "the policy decision could not be made right now; retry later",
    { headers: { "retry-after": "1" }, cause },
  );
}

/** Runs `work`, or throws `internal_error` when it takes longer than `ms`. */
export async function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new GatewayError("internal_error", `no decision within ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
