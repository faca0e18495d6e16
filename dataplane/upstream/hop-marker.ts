import { timingSafeEqual } from "node:crypto";
import { GatewayError } from "../core/errors.js";

/** Marks every call the gateway makes, so a call that comes back to it is refused (no loops). */
export const HOP_HEADER = "x-evident-hop";
/** How many gateways a call has passed (ours and others'); a second guard beside the marker. */
export const HOPS_HEADER = "x-evident-hops";

/**
 * The marker value is an HMAC of this label under the replicas' shared credential key
 * (EVIDENT_ENCRYPTION_KEY, see CredentialCipher.derive), so every replica recognises every other
 * replica's calls, and it says nothing about the key.
 */
export const HOP_LABEL = "evident-hop-v1";

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The hop count of an incoming call (0 from a client). Refuses with 508 loop_detected when the
 * call carries this deployment's marker (it was sent by the gateway itself) or has passed more
 * than `maxHops` gateways.
 */
export function checkIncomingHops(
  headers: Record<string, string | string[] | undefined>,
  token: string,
  maxHops: number,
): number {
  const marker = first(headers[HOP_HEADER]);
  if (marker !== undefined) {
    const a = Buffer.from(marker);
    const b = Buffer.from(token);
    if (a.length === b.length && timingSafeEqual(a, b)) {
      throw new GatewayError(
        "loop_detected",
        "this call was sent by this gateway to itself (a backend points back at the gateway); refused",
      );
    }
  }
  const count = Number.parseInt(first(headers[HOPS_HEADER]) ?? "0", 10);
  const hops = Number.isFinite(count) && count > 0 ? count : 0;
  if (hops > maxHops) {
    throw new GatewayError("loop_detected", `this call has passed ${hops} gateways; refused`);
  }
  return hops;
}
