import { GatewayError } from "../core/errors.js";
import type { Caller } from "../core/identity.js";
import { newId } from "../core/ids.js";
import type { RoutingTableHolder } from "../routing/routing-loader.js";
import type { CredentialCipher } from "../secrets/credential-cipher.js";
import type { BackendRepository } from "../store/backend-repository.js";
import type { Backend } from "./inventory-types.js";

export interface BackendInput {
  name: string;
  baseUrl: string;
  credential?: string | null;
  models: string[];
  enabled: boolean;
}

/** A customer's own OpenAI-compatible backends; credentials are encrypted and never returned. */
export class BackendService {
  constructor(
    private readonly backends: BackendRepository,
    private readonly cipher: CredentialCipher,
    private readonly routing: RoutingTableHolder,
  ) {}

  async register(caller: Caller, input: BackendInput): Promise<Backend> {
    const created = await this.backends.create({
      id: newId("bkd"),
      customerId: caller.customer.id,
      name: input.name,
      baseUrl: input.baseUrl,
      credentialCiphertext: input.credential ? this.cipher.encrypt(input.credential) : null,
      models: input.models,
      enabled: input.enabled,
    });
    await this.routing.changed();
    return created;
  }

  list(caller: Caller): Promise<Backend[]> {
    return this.backends.list(caller.customer.id);
  }

  async update(caller: Caller, id: string, patch: Partial<BackendInput>): Promise<Backend> {
    const updated = await this.backends.update(id, caller.customer.id, {
      name: patch.name,
      baseUrl: patch.baseUrl,
      credentialCiphertext:
        patch.credential === undefined
          ? undefined
          : patch.credential === null
            ? null
            : this.cipher.encrypt(patch.credential),
      models: patch.models,
      enabled: patch.enabled,
    });
    if (!updated) throw new GatewayError("resource_not_found", `backend ${id} not found`);
    await this.routing.changed();
    return updated;
  }

  async remove(caller: Caller, id: string): Promise<Backend> {
    const removed = await this.backends.delete(id, caller.customer.id);
    if (!removed) throw new GatewayError("resource_not_found", `backend ${id} not found`);
    await this.routing.changed();
    return removed;
  }
}
