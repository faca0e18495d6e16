/**
 * How long the audit ingester lets records gather after a batch before it reads the next one.
 *
 * A store transaction has a cost of its own, and a row costs less in a larger batch (in PGlite,
 * about 0.8 times per record at 120 records against 30: docs/benchmarks.md, "Issue 13, tenth
 * pass"). A longer wait makes larger batches, but each batch is then a longer burst of work on
 * the store's side, on the same cores as the requests, and at low traffic those bursts are what
 * makes the slow tail of a lone caller's requests (the eighth pass: 50 ms instead of 10 raised the
 * p99 at concurrency 1 by 0.6-1.1 ms). So the wait is short (`quietMs`) while records arrive
 * slowly, and long (`busyMs`) only while they arrive at `busyRecordsPerMs` or faster, where the
 * tail of a request is queueing anyway and the store's CPU per record decides the throughput.
 */
export interface LingerPolicy {
  quietMs: number;
  busyMs: number;
  busyRecordsPerMs: number;
}

/**
 * The wait after a batch of `records` that was read `sinceLastReadMs` after the batch before it
 * (the arrival rate is what one cycle of wait and ingestion gathered, over its length).
 */
export function lingerAfter(
  policy: LingerPolicy,
  records: number,
  sinceLastReadMs: number,
): number {
  if (policy.busyMs <= policy.quietMs || !(sinceLastReadMs > 0)) return policy.quietMs;
  return records / sinceLastReadMs >= policy.busyRecordsPerMs ? policy.busyMs : policy.quietMs;
}
