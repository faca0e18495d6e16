import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { newId } from "../../../core/ids.js";
import { actsForAnyCustomer, LEGAL_HOLD_ROLES, requireRole } from "../../../core/permissions.js";
import type { LegalHold } from "../../../store/retention-repository.js";
import { errorSchema, idParam, isoDateTime } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { legalHoldListResponse, legalHoldResponse } from "../response-schemas.js";
import { actingCustomer, customerQuery } from "./acting-customer.js";
import { auditErrors } from "./audit.js";

const holdBody = z
  .strictObject({
    from: isoDateTime,
    to: isoDateTime,
    reason: z.string().trim().min(1).max(2000),
    scope: z
      .strictObject({
        model: z.string().max(256).optional(),
        key_ids: z.array(idParam).max(100).optional(),
      })
      .default({}),
  })
  .refine((b) => Date.parse(b.from) < Date.parse(b.to), {
    message: "from must be before to",
    path: ["to"],
  });

function holdJson(h: LegalHold) {
  return {
    id: h.id,
    object: "legal_hold" as const,
    customer_id: h.customerId,
    from: h.from.toISOString(),
    to: h.to.toISOString(),
    reason: h.reason,
    scope: h.scope,
    active: h.active,
    created_at: h.createdAt.toISOString(),
    created_by: h.createdBy,
    released_at: h.releasedAt?.toISOString() ?? null,
  };
}

/** Legal holds on a customer's audit records: listed, placed and released. */
export function legalHoldRoutes(ctx: AppContext): AnyRouteSpec[] {
  const who = (c: Caller | undefined) => c as Caller;
  return [
    route({
      method: "GET",
      path: "/api/v1/audit/legal-hold",
      tag: "audit",
      summary: "Legal holds of the caller's customer",
      query: customerQuery.extend({ active_only: z.enum(["true", "false"]).default("false") }),
      responses: {
        200: { description: "LegalHoldListResponse", schema: legalHoldListResponse },
        ...auditErrors,
      },
      handler: async ({ query, caller }) => {
        const customerId = actingCustomer(who(caller), query.customer_id);
        const holds = await ctx.repos.retention.holds(customerId, query.active_only === "true");
        return {
          status: 200,
          body: { object: "list", data: holds.map(holdJson), has_more: false },
        };
      },
    }),
    route({
      method: "POST",
      path: "/api/v1/audit/legal-hold",
      tag: "audit",
      summary:
        "Place a legal hold on the audit records in a date range (nothing in it is deleted while active)",
      query: customerQuery,
      body: holdBody.meta({ id: "CreateLegalHoldRequest" }),
      responses: {
        201: { description: "LegalHoldResponse", schema: legalHoldResponse },
        ...auditErrors,
      },
      handler: async ({ query, body, caller }) => {
        requireRole(who(caller), LEGAL_HOLD_ROLES, "place legal holds");
        const customerId = actingCustomer(who(caller), query.customer_id);
        const hold = await ctx.repos.retention.createHold({
          id: newId("hold"),
          customerId,
          from: new Date(body.from),
          to: new Date(body.to),
          reason: body.reason,
          scope: body.scope,
          createdBy: who(caller).key.id,
        });
        await ctx.audit.management(
          who(caller),
          "legal_hold.create",
          hold.id,
          { from: body.from, to: body.to, scope: body.scope },
          customerId,
        );
        return { status: 201, body: holdJson(hold) };
      },
    }),
    route({
      method: "DELETE",
      path: "/api/v1/audit/legal-hold/:hold_id",
      tag: "audit",
      summary: "Release a legal hold (it stays on record, deactivated)",
      params: z.object({ hold_id: idParam }),
      responses: {
        204: { description: "released" },
        404: { description: "no such hold", schema: errorSchema },
        ...auditErrors,
      },
      handler: async ({ params, caller }) => {
        const c = who(caller);
        requireRole(c, LEGAL_HOLD_ROLES, "release legal holds");
        const released = await ctx.repos.retention.releaseHold(
          params.hold_id,
          actsForAnyCustomer(c.key.role) ? null : c.customer.id,
          c.key.id,
        );
        if (!released)
          throw new GatewayError("resource_not_found", `legal hold ${params.hold_id} not found`);
        await ctx.audit.management(c, "legal_hold.release", released.id, {}, released.customerId);
        return { status: 204 };
      },
    }),
  ];
}
