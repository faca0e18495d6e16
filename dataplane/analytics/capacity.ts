import type { InferenceCall } from "../core/inference-call.js";
import type { Caller } from "../core/identity.js";
import type { Backend, Deployment } from "../registry/inventory-types.js";
import { CallState } from "../core/call-state.js";

/**
 * Calls in flight per target (deployment or backend) in this process: counted from the moment a
 * call is routed until its post-call work starts.
 */
export class InFlightTracker {
  private readonly counts = new Map<string, number>();
  private readonly started = new CallState<string>("started");

  begin(call: InferenceCall): void {
    const target = call.route?.targets[0]?.id;
    if (!target || this.started.has(call)) return;
    this.started.set(call, target);
    this.counts.set(target, (this.counts.get(target) ?? 0) + 1);
  }

  end(call: InferenceCall): void {
    const target = this.started.get(call);
    if (!target) return;
    this.started.delete(call);
    const left = (this.counts.get(target) ?? 1) - 1;
    if (left <= 0) this.counts.delete(target);
    else this.counts.set(target, left);
  }

  inFlight(target: string): number {
    return this.counts.get(target) ?? 0;
  }

  total(): number {
    let n = 0;
    for (const c of this.counts.values()) n += c;
    return n;
  }
}

export interface CapacityDeps {
  deployments: () => Promise<Deployment[]>;
  /** Backends of one customer, or of all (null). */
  backends: (customerId: string | null) => Promise<Backend[]>;
  modelName: (modelId: string) => string | undefined;
  healthy: (targetId: string) => boolean;
  tracker: InFlightTracker;
}

/**
 * Capacity of every deployment (shared by all customers) and of the caller's own backends (all
 * backends for an admin). Capacity = target_concurrency x max_replicas (or min_replicas, or 1);
 * utilisation = in-flight / capacity. The gateway never queues a call: `queued` is always 0.
 */
export async function capacityReport(deps: CapacityDeps, caller: Caller) {
  const admin = caller.key.role === "admin";
  const [deployments, backends] = await Promise.all([
    deps.deployments(),
    deps.backends(admin ? null : caller.customer.id),
  ]);
  const targets = deployments.map((d) => {
    const replicas = d.scaling.max_replicas ?? d.scaling.min_replicas ?? 1;
    const concurrency = d.scaling.target_concurrency ?? null;
    const capacity = concurrency === null ? null : concurrency * replicas;
    const inFlight = deps.tracker.inFlight(d.id);
    return {
      id: d.id,
      kind: "deployment" as const,
      models: [deps.modelName(d.modelId) ?? d.modelId],
      status: d.status,
      healthy: d.status === "running" && deps.healthy(d.id),
      min_replicas: d.scaling.min_replicas ?? null,
      max_replicas: d.scaling.max_replicas ?? null,
      target_concurrency: concurrency,
      in_flight: inFlight,
      capacity,
      utilisation_percent: capacity ? Math.round((10_000 * inFlight) / capacity) / 100 : null,
      queued: 0,
    };
  });
  const own = backends.map((b) => ({
    id: b.id,
    kind: "backend" as const,
    models: b.models,
    status: b.enabled ? "enabled" : "disabled",
    healthy: b.enabled && deps.healthy(b.id),
    min_replicas: null,
    max_replicas: null,
    target_concurrency: null,
    in_flight: deps.tracker.inFlight(b.id),
    capacity: null,
    utilisation_percent: null,
    queued: 0,
  }));
  return { object: "capacity" as const, targets: [...targets, ...own] };
}
