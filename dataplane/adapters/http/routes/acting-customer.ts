import { z } from "zod";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { actsForAnyCustomer } from "../../../core/permissions.js";
import { idParam } from "../common-schemas.js";

/** The `?customer_id=` query of the routes an admin may call for another customer. */
export const customerQuery = z.object({ customer_id: idParam.optional() });

/** Admins may act for another customer with ?customer_id=; everyone else acts for their own. */
export function actingCustomer(caller: Caller, requested: string | undefined): string {
  if (requested === undefined || requested === caller.customer.id) return caller.customer.id;
  if (!actsForAnyCustomer(caller.key.role)) {
    throw new GatewayError(
      "insufficient_role",
      "only an admin (or operator) key may act for another customer",
    );
  }
  return requested;
}
