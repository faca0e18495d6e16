import {
  AccountService,
  applyAuthInvalidation,
  AUTH_CHANNEL,
} from "../accounts/account-service.js";
import type { Broadcast } from "../broadcast/broadcast.js";
import type { Config } from "../config/config.js";
import { Authenticator } from "../core/authenticator.js";
import type { Clock } from "../core/clock.js";
import type { Logger } from "../observability/logger.js";
import { withAdvisoryLock } from "../store/advisory-lock.js";
import { ApiKeyRepository } from "../store/api-key-repository.js";
import { CustomerRepository } from "../store/customer-repository.js";
import type { Database } from "../store/database.js";
import { storeKeyDirectory } from "../store/key-directory.js";
import { KeyUsageRecorder } from "../store/key-usage-recorder.js";

const BOOTSTRAP_LOCK_ID = 7_314_620_002;

export interface AuthDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  db: Database;
  broadcast: Broadcast;
}

/** Customers, keys and the authenticator, as the app wires them in. */
export interface AuthWiring {
  customers: CustomerRepository;
  apiKeys: ApiKeyRepository;
  authenticator: Authenticator;
  accounts: AccountService;
  /** The admin key generated on this first start, to be shown once. */
  generatedAdminKey: string | undefined;
  /** Starts recording key use (last used at), batched. */
  start(): void;
  close(): Promise<void>;
}

/**
 * Keys are looked up by hash through a cache that every replica clears on a broadcast when a key
 * or customer changes; the bootstrap admin key is created (or restored) under an advisory lock.
 */
export async function buildAuth({
  config,
  clock,
  logger,
  db,
  broadcast,
}: AuthDeps): Promise<AuthWiring> {
  const customers = new CustomerRepository(db);
  const apiKeys = new ApiKeyRepository(db);
  const usage = new KeyUsageRecorder(apiKeys, 30_000, (err) =>
    logger.warn({ err: String(err) }, "could not record key use"),
  );
  const authenticator = new Authenticator({
    directory: storeKeyDirectory(apiKeys, customers),
    clock,
    ttlMs: config.AUTH_CACHE_TTL_MS,
    onUse: (id) => usage.record(id),
  });
  const accounts = new AccountService(customers, apiKeys, authenticator, broadcast);
  const unsubscribe = await broadcast.subscribe(AUTH_CHANNEL, (message) => {
    try {
      applyAuthInvalidation(authenticator, JSON.parse(message));
    } catch {
      authenticator.clear();
    }
  });
  const { generated, restored } = await withAdvisoryLock(db, BOOTSTRAP_LOCK_ID, () =>
    accounts.bootstrapAdmin(config.EVIDENT_ADMIN_KEY),
  );
  if (restored) logger.warn("the bootstrap admin key (EVIDENT_ADMIN_KEY) was revoked; restored");
  return {
    customers,
    apiKeys,
    authenticator,
    accounts,
    generatedAdminKey: generated,
    start: () => usage.start(),
    async close() {
      await usage.stop();
      await unsubscribe().catch(() => undefined);
    },
  };
}
