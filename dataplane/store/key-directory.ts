import type { KeyDirectory } from "../core/authenticator.js";
import type { ApiKeyRecord, Customer } from "../core/identity.js";
import type { ApiKeyRepository } from "./api-key-repository.js";
import type { CustomerRepository } from "./customer-repository.js";

/** Looks a key and its customer up in the store (what the authenticator caches). */
export function storeKeyDirectory(
  keys: ApiKeyRepository,
  customers: CustomerRepository,
): KeyDirectory {
  return {
    async findByHash(keyHash): Promise<{ key: ApiKeyRecord; customer: Customer } | undefined> {
      const key = await keys.findByHash(keyHash);
      if (!key) return undefined;
      const customer = await customers.get(key.customerId);
      return customer ? { key, customer } : undefined;
    },
  };
}
