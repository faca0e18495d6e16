/**
 * Per-call figures summed in memory into buckets (one per key such as minute + customer + model)
 * and written to the store every flush, off the request path. A failed write keeps its buckets,
 * merged with any newer ones of the same key, for the next flush; at most `maxBuckets` are held
 * (new keys are dropped beyond it while the store is unreachable). Flushes run one at a time.
 */
export abstract class BucketBuffer<B> {
  protected pending = new Map<string, B>();
  private timer: NodeJS.Timeout | undefined;
  protected flushing: Promise<void> = Promise.resolve();

  constructor(private readonly maxBuckets: number) {}

  /** The bucket for `id`, made by `create` when new; undefined when the buffer is full. */
  protected bucket(id: string, create: () => B): B | undefined {
    let b = this.pending.get(id);
    if (!b) {
      if (this.pending.size >= this.maxBuckets) return undefined;
      b = create();
      this.pending.set(id, b);
    }
    return b;
  }

  /** Stores a batch of buckets (throws to keep them for the next flush). */
  protected abstract write(batch: Map<string, B>): Promise<void>;

  /** Adds `newer` into `older` (same key), for a batch kept after a failed write. */
  protected abstract merge(older: B, newer: B): void;

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  /** Writes everything recorded so far; resolves when stored (or kept after a failure). */
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
      await this.write(batch);
    } catch {
      for (const [id, b] of batch) {
        const newer = this.pending.get(id);
        if (newer) this.merge(b, newer);
        this.pending.set(id, b);
      }
    }
  }
}
