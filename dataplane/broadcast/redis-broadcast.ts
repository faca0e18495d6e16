import type { RedisConnection } from "../store/redis-connection.js";
import { deliver, type Broadcast, type BroadcastHandler } from "./broadcast.js";

/** Redis pub/sub on a dedicated subscriber connection; the client reconnects by itself. */
export async function redisBroadcast(
  redis: RedisConnection,
  onError: (err: unknown) => void = () => undefined,
): Promise<Broadcast> {
  const subscriber = redis.client.duplicate();
  subscriber.on("error", () => undefined); // reconnects; errors are reported by the main client
  await subscriber.connect();
  const handlers = new Map<string, Set<BroadcastHandler>>();
  const onMessage = (message: string, channel: string) => {
    deliver(handlers.get(channel) ?? [], message, onError);
  };
  return {
    kind: "redis",
    async publish(channel, message) {
      await redis.client.publish(channel, message);
    },
    async subscribe(channel, handler) {
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        await subscriber.subscribe(channel, onMessage);
      }
      set.add(handler);
      const current = set;
      return async () => {
        current.delete(handler);
        if (current.size === 0) {
          handlers.delete(channel);
          await subscriber.unsubscribe(channel);
        }
      };
    },
    async close() {
      handlers.clear();
      subscriber.destroy();
    },
  };
}
