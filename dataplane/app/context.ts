import type { AccountService } from "../accounts/account-service.js";
import type { Broadcast } from "../broadcast/broadcast.js";
import type { Config } from "../config/config.js";
import type { Authenticator } from "../core/authenticator.js";
import type { Clock } from "../core/clock.js";
import type { Logger } from "../observability/logger.js";
import type { Metrics } from "../observability/metrics.js";
import type { ApiKeyRepository } from "../store/api-key-repository.js";
import type { CustomerRepository } from "../store/customer-repository.js";
import type { Database } from "../store/database.js";
import type { RedisConnection } from "../store/redis-connection.js";

/** A named readiness condition; /readyz is 200 only when every one holds. */
export type ReadinessCheck = () => Promise<boolean> | boolean;

/** Everything a request handler may use, built once at start and passed in. */
export interface AppContext {
  config: Config;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  db: Database;
  redis: RedisConnection | undefined;
  broadcast: Broadcast;
  repos: {
    customers: CustomerRepository;
    apiKeys: ApiKeyRepository;
  };
  authenticator: Authenticator;
  accounts: AccountService;
  readiness: Map<string, ReadinessCheck>;
  startedAt: number;
}
