import { apiKeyHint, generateApiKey, hashApiKey } from "../core/api-key-format.js";
import type { Broadcast } from "../broadcast/broadcast.js";
import type { Authenticator } from "../core/authenticator.js";
import { GatewayError } from "../core/errors.js";
import {
  DEFAULT_CUSTOMER_ID,
  type ApiKeyRecord,
  type Caller,
  type ClassificationLevel,
  type Customer,
  type Role,
  type Tier,
} from "../core/identity.js";
import { newId } from "../core/ids.js";
import { checkNewKey, mayAlterKey } from "../core/permissions.js";
import type { ApiKeyRepository } from "../store/api-key-repository.js";
import type { CustomerRepository } from "../store/customer-repository.js";

export const AUTH_CHANNEL = "evident.auth.invalidate";

/** What goes over AUTH_CHANNEL so every replica drops stale cache entries. */
export type AuthInvalidation = { keyHash: string } | { customerId: string };

export interface Page {
  limit: number;
  offset: number;
}

function requireAdmin(caller: Caller, action: string): void {
  if (caller.key.role !== "admin") {
    throw new GatewayError("insufficient_role", `only an admin key may ${action}`);
  }
}

/** A member key acts only within its own customer; an admin key acts for any. */
function scopeOf(caller: Caller): string | null {
  return caller.key.role === "admin" ? null : caller.customer.id;
}

export class AccountService {
  constructor(
    private readonly customers: CustomerRepository,
    private readonly keys: ApiKeyRepository,
    private readonly authenticator: Authenticator,
    private readonly broadcast: Broadcast,
  ) {}

  async createCustomer(caller: Caller, input: { name: string; tier: Tier }): Promise<Customer> {
    requireAdmin(caller, "create customers");
    return this.customers.create({ id: newId("cus"), ...input });
  }

  async listCustomers(caller: Caller, page: Page): Promise<Customer[]> {
    requireAdmin(caller, "list customers");
    return this.customers.list(page);
  }

  async getCustomer(caller: Caller, id: string): Promise<Customer> {
    if (caller.key.role !== "admin" && caller.customer.id !== id) throw notFound("customer", id);
    const customer = await this.customers.get(id);
    if (!customer) throw notFound("customer", id);
    return customer;
  }

  async updateCustomer(
    caller: Caller,
    id: string,
    patch: { name?: string; tier?: Tier },
  ): Promise<Customer> {
    requireAdmin(caller, "change customers");
    const updated = await this.customers.update(id, patch);
    if (!updated) throw notFound("customer", id);
    await this.invalidate({ customerId: id });
    return updated;
  }

  async createKey(
    caller: Caller,
    input: {
      customerId: string;
      name: string;
      role: Role;
      classificationFloor: ClassificationLevel;
    },
  ): Promise<{ record: ApiKeyRecord; plaintext: string }> {
    if (caller.key.role !== "admin" && input.customerId !== caller.customer.id) {
      throw new GatewayError(
        "insufficient_role",
        "only an admin key may manage other customers' keys",
      );
    }
    checkNewKey(caller, input.role, input.classificationFloor);
    if (!(await this.customers.get(input.customerId))) {
      throw new GatewayError("validation_failed", `customer ${input.customerId} does not exist`, {
        detail: [
          { loc: ["body", "customer_id"], msg: "unknown customer", type: "unknown_customer" },
        ],
      });
    }
    const plaintext = generateApiKey();
    const keyHash = hashApiKey(plaintext);
    const record = await this.keys.create({
      id: newId("key"),
      ...input,
      keyHash,
      hint: apiKeyHint(plaintext),
      createdBy: caller.key.id,
    });
    // A replica may hold a cached miss for this hash (someone tried it before it existed).
    await this.invalidate({ keyHash });
    return { record, plaintext };
  }

  async listKeys(caller: Caller, page: Page, customerId?: string): Promise<ApiKeyRecord[]> {
    const scope = scopeOf(caller) ?? customerId ?? null;
    if (scope !== null && customerId !== undefined && customerId !== scope) return [];
    return this.keys.list({ customerId: scope, ...page });
  }

  async getKey(caller: Caller, id: string): Promise<ApiKeyRecord> {
    const key = await this.keys.get(id, scopeOf(caller));
    if (!key) throw notFound("key", id);
    return key;
  }

  /** Revokes a key; it stops working at once on every replica. */
  async revokeKey(caller: Caller, id: string): Promise<ApiKeyRecord> {
    const target = await this.getKey(caller, id);
    if (!mayAlterKey(caller, target)) {
      throw new GatewayError(
        "insufficient_role",
        `only an admin key may revoke a ${target.role} key`,
      );
    }
    const revoked = await this.keys.revoke(id, scopeOf(caller));
    if (!revoked) throw notFound("key", id);
    await this.invalidate({ keyHash: revoked.keyHash });
    return revoked.key;
  }

  /**
   * Makes sure an admin key exists. With a configured key: stores its hash (idempotent). Without
   * one: generates a key only when no active admin key exists, and returns it to be shown once.
   */
  async bootstrapAdmin(
    configuredKey: string | undefined,
  ): Promise<{ generated?: string; restored?: boolean }> {
    await this.customers.ensure({ id: DEFAULT_CUSTOMER_ID, name: "default", tier: "enterprise" });
    if (configuredKey === undefined && (await this.keys.countAdmins()) > 0) return {};
    const plaintext = configuredKey ?? generateApiKey();
    await this.keys.ensure({
      id: newId("key"),
      customerId: DEFAULT_CUSTOMER_ID,
      name: "bootstrap-admin",
      role: "admin",
      classificationFloor: "public",
      keyHash: hashApiKey(plaintext),
      hint: apiKeyHint(plaintext),
      createdBy: null,
    });
    if (configuredKey === undefined) return { generated: plaintext };
    // The configured key is the way back in: revoked (or demoted) keys with its hash are restored.
    const keyHash = hashApiKey(plaintext);
    const restored = await this.keys.restoreAdmin(keyHash);
    if (restored) await this.invalidate({ keyHash });
    return { restored };
  }

  /** Applies an invalidation here, then tells the other replicas. */
  private async invalidate(message: AuthInvalidation): Promise<void> {
    applyAuthInvalidation(this.authenticator, message);
    await this.broadcast.publish(AUTH_CHANNEL, JSON.stringify(message)).catch(() => undefined);
  }
}

export function applyAuthInvalidation(auth: Authenticator, message: AuthInvalidation): void {
  if ("keyHash" in message) auth.invalidateKeyHash(message.keyHash);
  else auth.invalidateCustomer(message.customerId);
}

function notFound(what: string, id: string): GatewayError {
  return new GatewayError("resource_not_found", `${what} ${id} not found`);
}
