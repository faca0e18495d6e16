import { GatewayError } from "./errors.js";
import { classificationRank, type ApiKeyRecord, type Caller, type Role } from "./identity.js";

/**
 * The role model (the table in docs/api.md is the user-facing copy):
 * - admin: the platform administrator; everything, for any customer.
 * - operator: what the Kubernetes operator needs, for any customer: models, deployments, routes,
 *   guardrail rules and legal holds; nothing else (no inference, keys, audit reads or metrics).
 * - compliance: a member of its customer that may also place and release legal holds and change
 *   retention. Granted by an admin only.
 * - member: inference and the customer's own resources; cannot change what compliance set up.
 */

/** Roles whose by-id lookups and `customer_id` parameters reach every customer. */
export function actsForAnyCustomer(role: Role): boolean {
  return role === "admin" || role === "operator";
}

/** Registry writes (models, deployments) and reading deployments' endpoint URLs. */
export const REGISTRY_ROLES: readonly Role[] = ["admin", "operator"];
/** Placing and releasing legal holds. */
export const LEGAL_HOLD_ROLES: readonly Role[] = ["admin", "compliance", "operator"];
/** Changing audit retention (days and content mode). */
export const RETENTION_ROLES: readonly Role[] = ["admin", "compliance"];
/** Platform-wide figures (/api/v1/system/metrics). */
export const PLATFORM_ROLES: readonly Role[] = ["admin"];
/** Calling models through /v1 (and the Envoy path). */
export const INFERENCE_ROLES: readonly Role[] = ["admin", "member", "compliance"];

export function hasRole(caller: Caller, roles: readonly Role[]): boolean {
  return roles.includes(caller.key.role);
}

/** Refuses with 403 insufficient_role unless the caller's key has one of `roles`. */
export function requireRole(caller: Caller, roles: readonly Role[], action: string): void {
  if (!hasRole(caller, roles)) {
    throw new GatewayError(
      "insufficient_role",
      `a ${caller.key.role} key may not ${action} (needs ${roles.join(" or ")})`,
    );
  }
}

/**
 * Whether the caller may revoke or change `target` (a key of a customer the caller may act for):
 * an admin any key; anyone else only member keys (and its own key).
 */
export function mayAlterKey(caller: Caller, target: ApiKeyRecord): boolean {
  if (caller.key.role === "admin") return true;
  return target.role === "member" || target.id === caller.key.id;
}

/** A new key's role and classification floor never exceed what its creator holds. */
export function checkNewKey(
  caller: Caller,
  role: Role,
  floor: ApiKeyRecord["classificationFloor"],
): void {
  if (caller.key.role !== "admin" && role !== "member") {
    throw new GatewayError("insufficient_role", `only an admin key may create ${role} keys`);
  }
  if (classificationRank(floor) < classificationRank(caller.key.classificationFloor)) {
    throw new GatewayError(
      "insufficient_role",
      `a key's classification floor cannot be below its creator's (${caller.key.classificationFloor})`,
    );
  }
  // The floor is also a key's clearance for RAG collections (docs/rag.md): a member minting a key
  // above its own floor would read collections it cannot read itself. Only an admin raises it.
  if (caller.key.role !== "admin" && floor !== caller.key.classificationFloor) {
    throw new GatewayError(
      "insufficient_role",
      `only an admin key may create a key with a classification floor above its creator's (${caller.key.classificationFloor})`,
    );
  }
}
