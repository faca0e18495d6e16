import { GatewayError } from "../core/errors.js";
import type { RouteDecision, Target } from "../routing/routing-types.js";
import type { TargetHealth } from "../routing/target-health.js";
import {
  UNREACHABLE,
  UpstreamConnectError,
  type UpstreamClient,
  type UpstreamRequest,
  type UpstreamResponse,
} from "./upstream-client.js";

export interface ForwardOptions {
  /** How many other targets may be tried after the first (UPSTREAM_RETRIES). */
  retries: number;
  signal: AbortSignal;
  /** Backoff before attempt n (1-based); tests pass a no-op. */
  sleep?: (ms: number) => Promise<void>;
}

export interface Forwarded {
  target: Target;
  response: UpstreamResponse;
  attempts: number;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Answers that say "this backend cannot serve now, another may": worth trying another target. */
const TRY_ANOTHER = new Set([502, 503, 504]);

/**
 * Sends to the decision's targets in order. Another target (never the same one again) is tried,
 * after a short jittered backoff and at most `retries` times, only when
 * - nothing was received from this one (connection refused or reset, timeout before the headers), or
 * - it answered 502, 503 or 504.
 * Every other answer is returned as it is, for the caller to relay: a 500 or a 429 is the
 * backend's answer to this request, and the client's own retry policy decides about it (retrying
 * here would multiply the client's retries). With one target there is exactly one attempt.
 */
export async function forwardWithRetries(
  client: UpstreamClient,
  health: TargetHealth,
  decision: RouteDecision,
  build: (target: Target) => UpstreamRequest,
  options: ForwardOptions,
): Promise<Forwarded> {
  const sleep = options.sleep ?? defaultSleep;
  const maxAttempts = Math.min(options.retries + 1, decision.targets.length);
  const reason =
    decision.targets.length === 0 ? "no backend is available for this model" : UNREACHABLE;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    if (options.signal.aborted) break;
    if (attempt > 0) await sleep(25 * 2 ** attempt * (0.5 + Math.random()));
    const target = decision.targets[attempt] as Target;
    const another = attempt + 1 < maxAttempts;
    health.started(target.id);
    try {
      const response = await client.send(target, { ...build(target), signal: options.signal });
      if (response.status >= 500) {
        health.failed(target.id);
        client.noteFailure(target, `upstream answered ${response.status}`);
      } else health.succeeded(target.id);
      // 508: the call came back to a gateway (a loop); another attempt would loop again.
      if (response.status === 508 || (TRY_ANOTHER.has(response.status) && another)) {
        await response.body.dump().catch(() => undefined);
        if (response.status === 508) break;
        continue;
      }
      return { target, response, attempts: attempt + 1 };
    } catch (err) {
      if (options.signal.aborted) {
        health.released(target.id);
        break;
      }
      health.failed(target.id);
      if (!(err instanceof UpstreamConnectError)) client.noteFailure(target, String(err));
    }
  }
  if (options.signal.aborted)
    throw new GatewayError("upstream_unavailable", "the client went away");
  // One message whatever went wrong (refused, not found, timed out, 5xx, denied by policy): the
  // caller must not learn what is reachable from the gateway. The reason is in the logs.
  throw new GatewayError("upstream_unavailable", `backend error: ${reason}`);
}
