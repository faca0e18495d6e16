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

/**
 * Sends to the decision's targets in order, up to retries + 1 attempts. A refused connection, a
 * timeout or a 5xx moves on to the next target after a short jittered backoff; nothing has reached the client yet, so retrying
 * is safe. A response below 500 is returned as it is (the caller relays it).
 */
export async function forwardWithRetries(
  client: UpstreamClient,
  health: TargetHealth,
  decision: RouteDecision,
  build: (target: Target) => UpstreamRequest,
  options: ForwardOptions,
): Promise<Forwarded> {
  const sleep = options.sleep ?? defaultSleep;
  const maxAttempts = decision.targets.length === 0 ? 0 : options.retries + 1;
  const reason =
    decision.targets.length === 0 ? "no backend is available for this model" : UNREACHABLE;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    if (options.signal.aborted) break;
    if (attempt > 0) await sleep(25 * 2 ** attempt * (0.5 + Math.random()));
    // Next target in order; with fewer targets than attempts, the list is tried again.
    const target = decision.targets[attempt % decision.targets.length] as Target;
    health.started(target.id);
    try {
      const response = await client.send(target, { ...build(target), signal: options.signal });
      if (response.status >= 500) {
        health.failed(target.id);
        client.noteFailure(target, `upstream answered ${response.status}`);
        await response.body.dump().catch(() => undefined);
        // 508: the call came back to a gateway (a loop); another attempt would loop again.
        if (response.status === 508) break;
        continue;
      }
      health.succeeded(target.id);
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
