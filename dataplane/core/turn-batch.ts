/**
 * Runs CPU-bound work of many calls back to back, once per event-loop turn.
 *
 * Under load, the HTTP server reads several requests (and undici several answers) in one poll
 * phase. Run one by one, each guardrail scan starts with its code and tables evicted from the CPU's
 * caches by the rest of its request's work: a 50-character prompt's scan costs about twice as much
 * cold as warm (docs/benchmarks.md, "Issue 13, third pass"). Queued here instead, the scans of
 * every call that arrived in the same turn run together in the turn's check phase (setImmediate),
 * the first one warming the caches for the rest. Alone (concurrency 1), a call waits only for the
 * rest of its own turn's poll phase.
 *
 * The request and answer guards queue every call here, even one with nothing to scan: what the
 * calls of a turn do after it (routing and the upstream request; metering, audit and the reply) then
 * also runs back to back, and the same calls cost the event loop less than when each one ran on its
 * own as its socket was read (docs/benchmarks.md, "Issue 13, seventeenth pass").
 *
 * Each job's result or exception goes to its own caller; one job's failure does not touch the
 * others. Jobs run in the order they were queued.
 */
interface Job {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

export class TurnBatch {
  #queue: Job[] = [];
  #scheduled = false;

  /** `work()` run with the other jobs queued in this turn; its result (or exception) when done. */
  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#drain);
      }
    });
  }

  readonly #drain = (): void => {
    this.#scheduled = false;
    const jobs = this.#queue;
    this.#queue = [];
    for (const job of jobs) {
      try {
        job.resolve(job.work());
      } catch (err) {
        job.reject(err);
      }
    }
  };
}

/**
 * The process's batch for guardrail work: the request and response scans (guard-stages.ts) and the
 * filtering of streamed chunks (relay-stream.ts) share it, so each finds the other's code warm.
 */
export const guardrailTurn = new TurnBatch();
