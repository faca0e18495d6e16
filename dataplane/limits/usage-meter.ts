import type { UsageBucket, UsageRepository } from "../store/usage-repository.js";

/** One metered call, as the meter stage sees it after the call. */
export interface MeteredCall {
  at: number;
  customerId: string;
  keyId: string;
  model: string;
  failed: boolean;
  rateLimited: boolean;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  latencyMs: number;
}

const BUCKET_MS = 60_000;
/** Buckets kept while the store is unreachable; beyond this the oldest are dropped. */
const MAX_PENDING_BUCKETS = 50_000;

/**
 * Aggregates calls in memory per (minute, customer, key, model) and writes the buckets to
 * usage_records every few seconds, off the request path. A crash loses at most the calls since
 * the last flush; a failed flush keeps the buckets for the next one.
 */
export class UsageMeter {
  private pending = new Map<string, UsageBucket>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly repo: UsageRepository,
    private readonly onError: (err: unknown) => void,
  ) {}

  record(c: MeteredCall): void {
    const bucketStart = Math.floor(c.at / BUCKET_MS) * BUCKET_MS;
    const id = `${bucketStart}\u0000${c.customerId}\u0000${c.keyId}\u0000${c.model}`;
    let b = this.pending.get(id);
    if (!b) {
      if (this.pending.size >= MAX_PENDING_BUCKETS) return;
      b = {
        bucketStart: new Date(bucketStart),
        customerId: c.customerId,
        keyId: c.keyId,
        model: c.model,
        requests: 0,
        errors: 0,
        rateLimited: 0,
        promptTokens: 0,
        completionTokens: 0,
        costUsd: 0,
        latencyMsSum: 0,
      };
      this.pending.set(id, b);
    }
    b.requests += 1;
    if (c.failed) b.errors += 1;
    if (c.rateLimited) b.rateLimited += 1;
    b.promptTokens += c.promptTokens;
    b.completionTokens += c.completionTokens;
    b.costUsd += c.costUsd;
    b.latencyMsSum += Math.max(0, Math.round(c.latencyMs));
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Writes everything aggregated so far; resolves when it is stored (or kept after a failure). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writePending());
    return this.flushing;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.repo.add([...batch.values()]);
    } catch (err) {
      this.onError(err);
      for (const [id, b] of batch) {
        const newer = this.pending.get(id);
        if (newer) mergeInto(b, newer);
        this.pending.set(id, b);
      }
    }
  }
}

function mergeInto(target: UsageBucket, other: UsageBucket): void {
  target.requests += other.requests;
  target.errors += other.errors;
  target.rateLimited += other.rateLimited;
  target.promptTokens += other.promptTokens;
  target.completionTokens += other.completionTokens;
  target.costUsd += other.costUsd;
  target.latencyMsSum += other.latencyMsSum;
}
