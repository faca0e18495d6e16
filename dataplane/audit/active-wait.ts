import { setImmediate as nextTurn } from "node:timers";

/**
 * Awaits `promise` while keeping the event loop turning (one setImmediate per turn) instead of
 * letting it sleep, for at most `maxMs`. Nothing is blocked: timers, sockets and other callbacks
 * run between turns as usual. What it buys is the wake-up: a synced log write completes on
 * libuv's thread pool, and an event loop asleep in epoll, on a virtual machine whose idle core
 * has halted, takes a long while to notice (docs/benchmarks.md, "Issue 13, thirteenth pass": about
 * 0.1-0.3 ms of the reply's wait at concurrency 1). What it costs is that core's time while it
 * waits, so the audit writer uses it only for a lone call (AuditWriter.waitActivelyWhen).
 * `maxMs` <= 0: a plain await.
 */
export function awaitActively<T>(promise: Promise<T>, maxMs: number): Promise<T> {
  if (maxMs <= 0) return promise;
  let settled = false;
  const until = performance.now() + maxMs;
  const turn = (): void => {
    if (!settled && performance.now() < until) nextTurn(turn);
  };
  nextTurn(turn);
  return promise.finally(() => {
    settled = true;
  });
}
