import path from "node:path";
import { memoryBroadcast, type Broadcast } from "../broadcast/broadcast.js";
import { postgresBroadcast } from "../broadcast/postgres-broadcast.js";
import { redisBroadcast } from "../broadcast/redis-broadcast.js";
import type { Config } from "../config/config.js";
import type { Logger } from "../observability/logger.js";
import type { Database } from "../store/database.js";
import { openPglite } from "../store/pglite-database.js";
import { openPostgres } from "../store/postgres-database.js";
import { connectRedis, type RedisConnection } from "../store/redis-connection.js";

export interface Stores {
  db: Database;
  redis: RedisConnection | undefined;
  broadcast: Broadcast;
}

/**
 * The embedded store thread's nice value under AUDIT_DURABILITY=local: a weight of about a tenth
 * of the serving thread's when both want a core (docs/benchmarks.md, "Issue 13, fifteenth pass").
 */
const EMBEDDED_STORE_NICENESS = 10;

/**
 * Postgres when DATABASE_URL is set, else embedded PGlite in DATA_DIR; Redis when REDIS_URL is
 * set. Broadcast goes through Redis, else Postgres LISTEN/NOTIFY, else stays in the process.
 */
export async function openStores(config: Config, logger: Logger): Promise<Stores> {
  const db: Database = config.DATABASE_URL
    ? openPostgres({
        connectionString: config.DATABASE_URL,
        connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
        onIdleError: (err) => logger.warn({ err: err.message }, "postgres connection lost"),
      })
    : await openPglite(path.resolve(config.DATA_DIR, "pgdata"), {
        memoryLogSecs: config.PGLITE_MEMORY_LOG_SECS,
        // With the local audit log no reply waits for the store (docs/audit.md): its thread
        // yields the cores to the requests' when both want one.
        niceness: config.AUDIT_DURABILITY === "local" ? EMBEDDED_STORE_NICENESS : 0,
      });
  let redis: RedisConnection | undefined;
  let lastRedisError = 0;
  if (config.REDIS_URL) {
    redis = await connectRedis(config.REDIS_URL, (err) => {
      const now = Date.now();
      if (now - lastRedisError > 10_000) logger.warn({ err: err.message }, "redis error");
      lastRedisError = now;
    });
  }
  const onListenerError = (err: unknown) =>
    logger.error({ err: String(err) }, "a broadcast listener failed");
  const broadcast = redis
    ? await redisBroadcast(redis, onListenerError)
    : config.DATABASE_URL
      ? await postgresBroadcast(config.DATABASE_URL, (err) =>
          logger.warn({ err: err.message }, "postgres listener error"),
        )
      : memoryBroadcast(onListenerError);
  return { db, redis, broadcast };
}
