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

/**
 * Calls each handler with one message. A handler that throws, or returns a promise that rejects,
 * is reported to `onError` and never reaches the process (a listener cannot end the gateway).
 */
export function deliver(
  handlers: Iterable<BroadcastHandler>,
  message: string,
  onError: (err: unknown) => void,
): void {
  for (const handler of handlers) {
    try {
      const result: unknown = handler(message);
      if (result instanceof Promise) result.catch(onError);
    } catch (err) {
      onError(err);
    }
  }
}

/** One process: handlers are called on the next tick. */
export function memoryBroadcast(onError: (err: unknown) => void = () => undefined): Broadcast {
  const handlers = new Map<string, Set<BroadcastHandler>>();
  return {
    kind: "memory",
    async publish(channel, message) {
      const set = [...(handlers.get(channel) ?? [])];
      if (set.length > 0) queueMicrotask(() => deliver(set, message, onError));
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
