import type { Clock } from "../core/clock.js";

interface Entry<V> {
  value: V;
  loadedAt: number;
}

/**
 * A per-replica cache of small per-customer settings read from the store: fresh for `ttlMs`;
 * for one more `ttlMs` after that the last value is still served at once while it is reloaded in
 * the background (a customer with steady traffic never waits for the store); older than that it is
 * reloaded before it is served. When a reload fails (store unreachable) the last value is served
 * instead of failing the call, for at most `maxStaleMs`. Concurrent misses share one load.
 */
export class RefreshingCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly loading = new Map<string, Promise<V>>();
  /** Bumped by every invalidation: a load that began before one does not store its value. */
  private epoch = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxStaleMs = 24 * 3_600_000,
    private readonly maxEntries = 100_000,
  ) {}

  /** The value when it is fresh (what get() returns at once, without reloading); else undefined. */
  fresh(key: string): V | undefined {
    const hit = this.entries.get(key);
    return hit && this.clock.now() - hit.loadedAt < this.ttlMs ? hit.value : undefined;
  }

  async get(key: string, load: () => Promise<V>): Promise<V> {
    const now = this.clock.now();
    const hit = this.entries.get(key);
    if (hit && now - hit.loadedAt < this.ttlMs) return hit.value;
    if (hit && now - hit.loadedAt < 2 * this.ttlMs) {
      this.reload(key, load).catch(() => undefined);
      return hit.value;
    }
    return this.reload(key, load);
  }

  private reload(key: string, load: () => Promise<V>): Promise<V> {
    const pending = this.loading.get(key);
    if (pending) return pending;
    const epoch = this.epoch;
    const promise = load()
      .then((value) => {
        if (epoch !== this.epoch) return value;
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
      .finally(() => {
        if (this.loading.get(key) === promise) this.loading.delete(key);
      });
    this.loading.set(key, promise);
    return promise;
  }

  invalidate(key: string): void {
    this.epoch += 1;
    this.loading.delete(key);
    this.entries.delete(key);
  }
}
