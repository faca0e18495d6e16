import { createClient } from "redis";

function createRedisClient(url: string) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: 2_000,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000),
    },
  });
}

export type RedisClient = ReturnType<typeof createRedisClient>;

export interface RedisConnection {
  client: RedisClient;
  /** True while the client has a live connection. */
  isReady(): boolean;
  close(): Promise<void>;
}

/**
 * Connects to Redis. The client reconnects with capped backoff on its own; commands issued while
 * it is down fail fast (no offline queue) so callers can apply their fail mode.
 */
export async function connectRedis(
  url: string,
  onError: (err: Error) => void = () => undefined,
): Promise<RedisConnection> {
  const client = createRedisClient(url);
  client.on("error", onError);
  await client.connect();
  return {
    client,
    isReady: () => client.isReady,
    async close() {
      client.destroy();
    },
  };
}
