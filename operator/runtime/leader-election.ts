import type { Logger } from "pino";
import type { KubeClient } from "../kube/kube-client.js";
import { LEASES } from "../kube/resources.js";
import { isRecord, type KubeObject } from "../kube/types.js";
import type { Clock } from "./clock.js";

export interface LeaderElectionOptions {
  kube: KubeClient;
  clock: Clock;
  logger: Logger;
  namespace: string;
  leaseName: string;
  identity: string;
  leaseDurationMs: number;
  /** How often the leader renews and a follower retries; well under leaseDurationMs. */
  retryPeriodMs: number;
  onStartedLeading(): void;
  onStoppedLeading(): void;
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease. Every write carries the resourceVersion it read,
 * so two candidates can never both win (one gets 409). A leader that fails to renew before its lease
 * would expire steps down; release() empties holderIdentity so a successor does not wait out the lease.
 */
export class LeaderElector {
  private leading = false;
  private cancelTimer: (() => void) | undefined;
  private stopped = true;
  private lastRenewal = 0;
  private inflight: Promise<void> | undefined;

  constructor(private readonly options: LeaderElectionOptions) {}

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  private schedule(ms: number): void {
    this.cancelTimer = this.options.clock.setTimer(ms, () => {
      this.inflight = this.tick();
    });
  }

  /** Stops campaigning; a leader gives the lease up. */
  async release(): Promise<void> {
    this.stopped = true;
    this.cancelTimer?.();
    // A renewal in flight would re-take the lease after we empty it: let it land first.
    await this.inflight;
    this.setLeading(false);
    const { kube, namespace, leaseName, identity } = this.options;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const lease = await kube.get(LEASES, namespace, leaseName);
        if (!lease || holderOf(lease) !== identity) return;
        await kube.patch(LEASES, namespace, leaseName, {
          metadata: { resourceVersion: lease.metadata.resourceVersion },
          spec: { holderIdentity: null, leaseDurationSeconds: 1 },
        });
        return;
      } catch (err) {
        if (isRecord(err) && err.code === "resource_conflict") continue;
        this.options.logger.warn({ err: message(err) }, "could not release the leader lease");
        return;
      }
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      const held = await this.tryAcquireOrRenew();
      if (held) this.lastRenewal = this.options.clock.now();
      if (!this.stopped) this.setLeading(held);
    } catch (err) {
      this.options.logger.warn({ err: message(err) }, "leader election: lease update failed");
      // Step down at the renew deadline (2/3 of the lease), before anyone else may take the lease.
      if (
        this.leading &&
        this.options.clock.now() - this.lastRenewal >= (this.options.leaseDurationMs * 2) / 3
      ) {
        this.setLeading(false);
      }
    }
    if (!this.stopped)
      this.cancelTimer = this.options.clock.setTimer(
        this.options.retryPeriodMs,
        () => void this.tick(),
      );
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { kube, clock, namespace, leaseName, identity, leaseDurationMs } = this.options;
    const now = new Date(clock.now()).toISOString().replace("Z", "000Z");
    const lease = await kube.get(LEASES, namespace, leaseName);
    const durationSeconds = Math.max(1, Math.round(leaseDurationMs / 1000));
    if (!lease) {
      try {
        await kube.create(LEASES, namespace, {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name: leaseName, namespace },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds: durationSeconds,
            acquireTime: now,
            renewTime: now,
            leaseTransitions: 0,
          },
        });
        return true;
      } catch (err) {
        conflictAsFalse(err);
        return false;
      }
    }
    const holder = holderOf(lease);
    const spec = isRecord(lease.spec) ? lease.spec : {};
    if (holder !== identity && holder !== "" && !this.expired(spec)) return false;
    const transitions = typeof spec.leaseTransitions === "number" ? spec.leaseTransitions : 0;
    const takingOver = holder !== identity;
    try {
      await kube.patch(LEASES, namespace, leaseName, {
        metadata: { resourceVersion: lease.metadata.resourceVersion },
        spec: {
          holderIdentity: identity,
          leaseDurationSeconds: durationSeconds,
          renewTime: now,
          ...(takingOver ? { acquireTime: now, leaseTransitions: transitions + 1 } : {}),
        },
      });
      return true;
    } catch (err) {
      conflictAsFalse(err);
      return false;
    }
  }

  private expired(spec: Record<string, unknown>): boolean {
    const renewed = typeof spec.renewTime === "string" ? Date.parse(spec.renewTime) : NaN;
    const seconds = typeof spec.leaseDurationSeconds === "number" ? spec.leaseDurationSeconds : 15;
    return !Number.isFinite(renewed) || this.options.clock.now() > renewed + seconds * 1000;
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.options.logger.info(
      { identity: this.options.identity, leading },
      leading ? "became leader" : "stopped leading",
    );
    if (leading) this.options.onStartedLeading();
    else this.options.onStoppedLeading();
  }
}

function holderOf(lease: KubeObject): string {
  const spec = isRecord(lease.spec) ? lease.spec : {};
  return typeof spec.holderIdentity === "string" ? spec.holderIdentity : "";
}

function conflictAsFalse(err: unknown): void {
  if (isRecord(err) && err.code === "resource_conflict") return;
  throw err;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
