/**
 * Fire-and-forget messages between replicas (cache invalidation, routing changes). Delivery is
 * best effort: every consumer also has a periodic reload or TTL as a safety net.
 */
export type BroadcastHandler = (message: string) => void;

export interface Broadcast {
  readonly kind: "memory" | "redis" | "postgres";
  publish(channel: string, message: string): Promise<void>;
  /** Returns a function that stops the subscription. */
  subscribe(channel: string, handler: BroadcastHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** One process: handlers are called on the next tick. */
export function memoryBroadcast(): Broadcast {
  const handlers = new Map<string, Set<BroadcastHandler>>();
  return {
    kind: "memory",
    async publish(channel, message) {
      for (const h of handlers.get(channel) ?? []) queueMicrotask(() => h(message));
    },
    async subscribe(channel, handler) {
      const set = handlers.get(channel) ?? new Set();
      set.add(handler);
      handlers.set(channel, set);
      return async () => {
        set.delete(handler);
      };
    },
    async close() {
      handlers.clear();
    },
  };
}
