import pg from "pg";
import { deliver, type Broadcast, type BroadcastHandler } from "./broadcast.js";

/**
 * Postgres LISTEN/NOTIFY for replicas that share Postgres but no Redis. A dedicated connection
 * listens; if it drops, it is re-established with backoff and every channel is listened again.
 */
export async function postgresBroadcast(
  connectionString: string,
  onError: (err: Error) => void = () => undefined,
): Promise<Broadcast> {
  const handlers = new Map<string, Set<BroadcastHandler>>();
  const publisher = new pg.Pool({ connectionString, max: 2 });
  publisher.on("error", onError);
  let listener: pg.Client | undefined;
  let closed = false;
  let retryDelay = 100;

  const quote = (channel: string) => `"${channel.replace(/"/g, '""')}"`;

  async function connect(): Promise<void> {
    if (closed) return;
    const client = new pg.Client({ connectionString });
    client.on("notification", (n) => {
      deliver(handlers.get(n.channel) ?? [], n.payload ?? "", (err) =>
        onError(err instanceof Error ? err : new Error(String(err))),
      );
    });
    client.on("error", (err) => {
      onError(err);
      client.end().catch(() => undefined);
      if (listener === client) listener = undefined;
      scheduleReconnect();
    });
    try {
      await client.connect();
      for (const channel of handlers.keys()) await client.query(`LISTEN ${quote(channel)}`);
      listener = client;
      retryDelay = 100;
    } catch (err) {
      onError(err as Error);
      await client.end().catch(() => undefined);
      scheduleReconnect();
    }
  }

  function scheduleReconnect(): void {
    if (closed) return;
    const delay = retryDelay * (0.5 + Math.random());
    retryDelay = Math.min(retryDelay * 2, 5_000);
    setTimeout(() => void connect(), delay).unref();
  }

  await connect();
  return {
    kind: "postgres",
    async publish(channel, message) {
      await publisher.query("SELECT pg_notify($1, $2)", [channel, message]);
    },
    async subscribe(channel, handler) {
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        await listener?.query(`LISTEN ${quote(channel)}`);
      }
      set.add(handler);
      const current = set;
      return async () => {
        current.delete(handler);
        if (current.size === 0) {
          handlers.delete(channel);
          await listener?.query(`UNLISTEN ${quote(channel)}`).catch(() => undefined);
        }
      };
    },
    async close() {
      closed = true;
      handlers.clear();
      await listener?.end().catch(() => undefined);
      await publisher.end().catch(() => undefined);
    },
  };
}
