import type { DDSketch } from "@datadog/sketches-js";
import type { InferenceCall } from "../core/inference-call.js";
import type { AnalyticsRepository, RollupRow } from "../store/analytics-repository.js";
import { classifyCall } from "./availability.js";
import { BucketBuffer } from "./bucket-buffer.js";
import { mergeSerialized, newLatencySketch, serializeSketch } from "./latency-sketch.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
/** Buckets kept while the store is unreachable; beyond this new buckets are dropped. */
const MAX_PENDING = 50_000;
/** The model of calls that never reached one (refused before routing): bounded cardinality. */
export const UNROUTED = "(unrouted)";

/** One call as analytics records it. */
export interface RecordedCall {
  at: number;
  customerId: string;
  model: string;
  class: "success" | "failure" | "refusal" | "aborted";
  latencyMs: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  rateLimited: boolean;
}

interface PendingBucket extends Omit<RollupRow, "sketch"> {
  sketch: DDSketch | undefined;
}

export function recordedCall(call: InferenceCall, now: number): RecordedCall {
  return {
    at: call.startedAt,
    customerId: call.caller.customer.id,
    model: call.route?.model.name ?? UNROUTED,
    class: classifyCall(call.outcome, call.status),
    latencyMs: Math.max(0, now - call.startedAt),
    promptTokens: call.usage?.promptTokens ?? 0,
    completionTokens: call.usage?.completionTokens ?? 0,
    costUsd: call.costUsd ?? 0,
    rateLimited: call.outcome === "rate_limited",
  };
}

/**
 * Aggregates recorded calls per (minute, customer, model) in memory, with a latency sketch of the
 * completed ones, and adds them to the minute and hour rollups every flush (off the request path).
 * A failed flush keeps the buckets for the next; a crash loses at most one flush interval.
 */
export class RollupRecorder extends BucketBuffer<PendingBucket> {
  constructor(
    private readonly repo: AnalyticsRepository,
    private readonly onError: (err: unknown) => void,
  ) {
    super(MAX_PENDING);
  }

  record(c: RecordedCall): void {
    const start = Math.floor(c.at / MINUTE_MS) * MINUTE_MS;
    const id = `${start}\u0000${c.customerId}\u0000${c.model}`;
    const b = this.bucket(id, () => ({
      bucketStart: new Date(start),
      customerId: c.customerId,
      model: c.model,
      requests: 0,
      failures: 0,
      refusals: 0,
      rateLimited: 0,
      promptTokens: 0,
      completionTokens: 0,
      costUsd: 0,
      latencyMsSum: 0,
      sketch: undefined,
    }));
    if (!b) return;
    b.requests += 1;
    if (c.class === "failure") b.failures += 1;
    // Refusals (4xx) and abandoned calls are outside availability: both are kept as "refusals".
    if (c.class === "refusal" || c.class === "aborted") b.refusals += 1;
    if (c.rateLimited) b.rateLimited += 1;
    b.promptTokens += c.promptTokens;
    b.completionTokens += c.completionTokens;
    b.costUsd += c.costUsd;
    if (c.class === "success") {
      b.latencyMsSum += c.latencyMs;
      b.sketch ??= newLatencySketch();
      b.sketch.accept(c.latencyMs);
    }
  }

  protected async write(batch: Map<string, PendingBucket>): Promise<void> {
    const minutes = [...batch.values()].map(toRow);
    try {
      await this.repo.add("analytics_minute", minutes, mergeSerialized);
    } catch (err) {
      this.onError(err);
      throw err;
    }
    try {
      await this.repo.add("analytics_hour", rollUp(minutes, HOUR_MS), mergeSerialized);
    } catch (err) {
      // The minutes are stored; the hours are retried alone so nothing is counted twice.
      this.onError(err);
      this.retryHours(rollUp(minutes, HOUR_MS));
    }
  }

  protected merge(older: PendingBucket, newer: PendingBucket): void {
    for (const k of COUNTERS) older[k] += newer[k];
    if (newer.sketch) {
      if (older.sketch) older.sketch.merge(newer.sketch);
      else older.sketch = newer.sketch;
    }
  }

  private retryHours(hours: RollupRow[]): void {
    this.flushing = this.flushing.then(async () => {
      try {
        await this.repo.add("analytics_hour", hours, mergeSerialized);
      } catch (err) {
        this.onError(err);
      }
    });
  }
}

const COUNTERS = [
  "requests",
  "failures",
  "refusals",
  "rateLimited",
  "promptTokens",
  "completionTokens",
  "costUsd",
  "latencyMsSum",
] as const;

function toRow(b: PendingBucket): RollupRow {
  return { ...b, sketch: b.sketch ? serializeSketch(b.sketch) : null };
}

/** Sums rows into coarser buckets (e.g. minutes into hours), merging their sketches. */
export function rollUp(rows: readonly RollupRow[], sizeMs: number): RollupRow[] {
  const out = new Map<string, RollupRow>();
  for (const r of rows) {
    const start = Math.floor(r.bucketStart.getTime() / sizeMs) * sizeMs;
    const id = `${start}\u0000${r.customerId}\u0000${r.model}`;
    const into = out.get(id);
    if (!into) {
      out.set(id, { ...r, bucketStart: new Date(start) });
      continue;
    }
    for (const k of COUNTERS) into[k] += r[k];
    into.sketch = mergeSerialized(into.sketch, r.sketch);
  }
  return [...out.values()];
}
