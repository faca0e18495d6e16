import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from "./backoff.js";
import type { Clock } from "./clock.js";

export type KeyHandler = (key: string) => Promise<{ requeueAfterMs?: number } | void>;

export interface WorkQueueOptions {
  clock: Clock;
  handler: KeyHandler;
  concurrency?: number;
  backoff?: BackoffPolicy;
  random?: () => number;
  /** Called when a key's handler throws, with the attempt number, before the retry is scheduled. */
  onError?: (key: string, err: unknown, attempt: number, retryInMs: number) => void;
}

/**
 * A queue of keys (kind/namespace/name). A key is never handled by two workers at once; adding a key
 * that is queued coalesces, adding one that is running re-runs it once afterwards, so one object's
 * events are handled in order. Failed keys are retried with jittered exponential backoff per key.
 * While paused (not the leader) keys collect but nothing runs.
 */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly attempts = new Map<string, number>();
  private readonly delayed = new Map<string, { due: number; cancel: () => void }>();
  private readonly idleWaiters: (() => void)[] = [];
  private paused = true;
  private closed = false;
  private readonly concurrency: number;

  constructor(private readonly options: WorkQueueOptions) {
    this.concurrency = options.concurrency ?? 4;
  }

  add(key: string): void {
    if (this.closed) return;
    this.cancelDelayed(key);
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  /** Adds key after ms unless it is added sooner; keeps the earliest of several requests. */
  addAfter(key: string, ms: number): void {
    if (this.closed) return;
    const due = this.options.clock.now() + ms;
    const existing = this.delayed.get(key);
    if (existing && existing.due <= due) return;
    existing?.cancel();
    const cancel = this.options.clock.setTimer(ms, () => {
      this.delayed.delete(key);
      this.add(key);
    });
    this.delayed.set(key, { due, cancel });
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.pump();
  }

  depth(): number {
    return this.queue.length;
  }

  retries(key: string): number {
    return this.attempts.get(key) ?? 0;
  }

  /** Resolves when nothing is queued or running (delayed keys do not count). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking keys, cancels timers and waits for running handlers. */
  async shutdown(): Promise<void> {
    this.closed = true;
    for (const { cancel } of this.delayed.values()) cancel();
    this.delayed.clear();
    this.queue.length = 0;
    this.queued.clear();
    await this.idle();
  }

  private isIdle(): boolean {
    return this.running.size === 0 && (this.queue.length === 0 || this.paused || this.closed);
  }

  private cancelDelayed(key: string): void {
    this.delayed.get(key)?.cancel();
    this.delayed.delete(key);
  }

  private pump(): void {
    while (!this.paused && !this.closed && this.running.size < this.concurrency) {
      const index = this.queue.findIndex((k) => !this.running.has(k));
      if (index < 0) break;
      const [key] = this.queue.splice(index, 1);
      if (key === undefined) break;
      this.queued.delete(key);
      this.running.add(key);
      void this.run(key);
    }
    if (this.isIdle()) this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }

  private async run(key: string): Promise<void> {
    try {
      const result = await this.options.handler(key);
      this.attempts.delete(key);
      if (result?.requeueAfterMs !== undefined && !this.dirty.has(key))
        this.addAfter(key, result.requeueAfterMs);
    } catch (err) {
      const attempt = (this.attempts.get(key) ?? 0) + 1;
      this.attempts.set(key, attempt);
      const delay = backoffDelay(
        this.options.backoff ?? DEFAULT_BACKOFF,
        attempt,
        this.options.random,
      );
      this.options.onError?.(key, err, attempt, delay);
      if (!this.dirty.has(key)) this.addAfter(key, delay);
    } finally {
      this.running.delete(key);
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
