import type { Clock } from "../core/clock.js";

interface Health {
  consecutiveFailures: number;
  coolUntil: number;
  inFlight: number;
}

export interface HealthOptions {
  /** Consecutive failures that put a target in cool-down. */
  failureThreshold: number;
  coolDownMs: number;
}

/**
 * Passive health: targets are judged by the calls this replica makes to them. Consecutive
 * failures put a target in cool-down; one success clears the count.
 */
export class TargetHealth {
  private readonly state = new Map<string, Health>();

  constructor(
    private readonly clock: Clock,
    private readonly options: HealthOptions = { failureThreshold: 3, coolDownMs: 10_000 },
  ) {}

  private of(id: string): Health {
    let h = this.state.get(id);
    if (!h) {
      h = { consecutiveFailures: 0, coolUntil: 0, inFlight: 0 };
      this.state.set(id, h);
    }
    return h;
  }

  isHealthy(id: string): boolean {
    return this.of(id).coolUntil <= this.clock.now();
  }

  inFlight(id: string): number {
    return this.of(id).inFlight;
  }

  coolUntil(id: string): number {
    return this.of(id).coolUntil;
  }

  started(id: string): void {
    this.of(id).inFlight += 1;
  }

  succeeded(id: string): void {
    const h = this.of(id);
    h.inFlight = Math.max(0, h.inFlight - 1);
    h.consecutiveFailures = 0;
    h.coolUntil = 0;
  }

  failed(id: string): void {
    const h = this.of(id);
    h.inFlight = Math.max(0, h.inFlight - 1);
    h.consecutiveFailures += 1;
    if (h.consecutiveFailures >= this.options.failureThreshold) {
      h.coolUntil = this.clock.now() + this.options.coolDownMs;
    }
  }

  /** The call ended without a verdict on the target (client went away). */
  released(id: string): void {
    const h = this.of(id);
    h.inFlight = Math.max(0, h.inFlight - 1);
  }

  snapshot(ids: readonly string[]): { id: string; healthy: boolean }[] {
    return ids.map((id) => ({ id, healthy: this.isHealthy(id) }));
  }
}
