import type { Caller, Tier } from "../../dataplane/core/identity.js";

/** A member key's caller for unit tests (dates at 0); the key is `key_<customer>` unless named. */
export function memberCaller(
  customerId: string,
  options: { keyId?: string; tier?: Tier } = {},
): Caller {
  return {
    key: {
      id: options.keyId ?? `key_${customerId}`,
      customerId,
      name: "k",
      role: "member",
      classificationFloor: "public",
      hint: "ev_sk_x",
      createdAt: new Date(0),
      lastUsedAt: null,
      revokedAt: null,
    },
    customer: {
      id: customerId,
      name: "c",
      tier: options.tier ?? "pro",
      createdAt: new Date(0),
      updatedAt: new Date(0),
    },
  };
}
