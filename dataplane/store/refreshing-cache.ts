import type { Clock } from "../core/clock.js";

interface Entry<V> {
  value: V;
  loadedAt: number;
}

/**
 * A per-replica cache of small per-customer settings read from the store: fresh for `ttlMs`;
 * after that reloaded, and when the reload fails (store unreachable) the last value is served
 * instead of failing the call, for at most `maxStaleMs`. Concurrent misses share one load.
 */
export class RefreshingCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxStaleMs = 24 * 3_600_000,
    private readonly maxEntries = 100_000,
  ) {}

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const now = this.clock.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.loadedAt < this.ttlMs) return hit.value;
    const pending = this.loading.get(key);
    if (pending) return pending;
    const promise = load()
      .then((value) => {
        if (this.entries.size >= this.maxEntries)
          this.entries.delete(this.entries.keys().next().value as string);
        this.entries.set(key, { value, loadedAt: this.clock.now() });
        return value;
      })
      .catch((err: unknown) => {
        const stale = this.entries.get(key);
        if (stale && this.clock.now() - stale.loadedAt < this.maxStaleMs) return stale.value;
        throw err;
      })
      .finally(() => this.loading.delete(key));
    this.loading.set(key, promise);
    return promise;
  }

  invalidate(key: string): void {
    this.entries.delete(key);
  }
}
