import type { Logger } from "pino";
import type { ReadinessCheck } from "./context.js";

export interface DrainSteps {
  /** The readiness checks behind /readyz; draining adds one that fails. */
  readiness: Map<string, ReadinessCheck>;
  /** How long /readyz fails while the listeners still serve (endpoints and Envoy catch up). */
  drainDelayMs: number;
  /** Stops accepting gRPC streams and resolves when the open ones have finished. */
  closeGrpc: () => Promise<void>;
  /** Closes the HTTP listener (in-flight requests finish) and the stores. */
  closeApp: () => Promise<void>;
  sleep: (ms: number) => Promise<void>;
  logger: Logger;
}

/**
 * A rollout without errors: readiness fails first (Kubernetes and Envoy's health checks take the
 * pod out of rotation while it still answers everything it gets), then the listeners stop
 * accepting and in-flight calls finish, then the stores close. The caller bounds the whole drain
 * with SHUTDOWN_GRACE_MS.
 */
export async function drainAndClose(steps: DrainSteps): Promise<void> {
  steps.readiness.set("draining", () => false);
  if (steps.drainDelayMs > 0) {
    steps.logger.info({ delay_ms: steps.drainDelayMs }, "draining: readiness fails, still serving");
    await steps.sleep(steps.drainDelayMs);
  }
  steps.logger.info("draining: closing listeners, waiting for in-flight requests");
  await steps.closeGrpc();
  await steps.closeApp();
}
