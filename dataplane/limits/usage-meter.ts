import { BucketBuffer } from "../analytics/bucket-buffer.js";
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
/** Buckets kept while the store is unreachable; beyond this new buckets are dropped. */
const MAX_PENDING_BUCKETS = 50_000;

/**
 * Aggregates calls in memory per (minute, customer, key, model) and writes the buckets to
 * usage_records every few seconds, off the request path. A crash loses at most the calls since
 * the last flush; a failed flush keeps the buckets for the next one.
 */
export class UsageMeter extends BucketBuffer<UsageBucket> {
  constructor(
    private readonly repo: UsageRepository,
    private readonly onError: (err: unknown) => void,
  ) {
    super(MAX_PENDING_BUCKETS);
  }

  record(c: MeteredCall): void {
    const bucketStart = Math.floor(c.at / BUCKET_MS) * BUCKET_MS;
    const id = `${bucketStart}\u0000${c.customerId}\u0000${c.keyId}\u0000${c.model}`;
    const b = this.bucket(id, () => ({
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
    }));
    if (!b) return;
    b.requests += 1;
    if (c.failed) b.errors += 1;
    if (c.rateLimited) b.rateLimited += 1;
    b.promptTokens += c.promptTokens;
    b.completionTokens += c.completionTokens;
    b.costUsd += c.costUsd;
    b.latencyMsSum += Math.max(0, Math.round(c.latencyMs));
  }

  protected async write(batch: Map<string, UsageBucket>): Promise<void> {
    try {
      await this.repo.add([...batch.values()]);
    } catch (err) {
      this.onError(err);
      throw err;
    }
  }

  protected merge(older: UsageBucket, newer: UsageBucket): void {
    mergeInto(older, newer);
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
