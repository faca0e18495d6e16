import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import type { Caller } from "../../../core/identity.js";
import { requireRole, RETENTION_ROLES } from "../../../core/permissions.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { retentionReportResponse, retentionResponse } from "../response-schemas.js";
import { actingCustomer, customerQuery } from "./acting-customer.js";
import { auditErrors } from "./audit.js";

const retentionBody = z
  .strictObject({
    metadata_days: z.number().int().min(1).max(36_500).optional(),
    content_days: z.number().int().min(0).max(36_500).optional(),
    content_mode: z.enum(["none", "redacted", "full"]).optional(),
  })
  .refine((b) => Object.keys(b).length > 0, "nothing to update");

/** How long a customer's audit records and content are kept, and the retention report. */
export function retentionRoutes(ctx: AppContext): AnyRouteSpec[] {
  const who = (c: Caller | undefined) => c as Caller;
  const retentionJson = async (customerId: string) => {
    const s = await ctx.audit.settings(customerId);
    return {
      object: "retention" as const,
      customer_id: customerId,
      metadata_days: s.metadataDays,
      content_days: s.contentDays,
      content_mode: s.contentMode,
      updated_at: s.updatedAt?.toISOString() ?? null,
    };
  };
  return [
    route({
      method: "GET",
      path: "/api/v1/audit/retention",
      tag: "audit",
      summary: "Retention of the caller's audit records and content",
      query: customerQuery,
      responses: {
        200: { description: "RetentionResponse", schema: retentionResponse },
        ...auditErrors,
      },
      handler: async ({ query, caller }) => ({
        status: 200,
        body: await retentionJson(actingCustomer(who(caller), query.customer_id)),
      }),
    }),
    route({
      method: "PATCH",
      path: "/api/v1/audit/retention",
      tag: "audit",
      summary: "Change retention (days of metadata and of content) and whether content is kept",
      query: customerQuery,
      body: retentionBody.meta({ id: "UpdateRetentionRequest" }),
      responses: {
        200: { description: "RetentionResponse", schema: retentionResponse },
        ...auditErrors,
      },
      handler: async ({ query, body, caller }) => {
        requireRole(who(caller), RETENTION_ROLES, "change retention");
        const customerId = actingCustomer(who(caller), query.customer_id);
        const current = await ctx.repos.retention.settings(customerId);
        await ctx.repos.retention.saveSettings({
          customerId,
          metadataDays: body.metadata_days ?? current.metadataDays,
          contentDays: body.content_days ?? current.contentDays,
          contentMode: body.content_mode ?? current.contentMode,
        });
        ctx.audit.forgetSettings(customerId);
        await ctx.audit.management(who(caller), "retention.update", customerId, body, customerId);
        return { status: 200, body: await retentionJson(customerId) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/audit/retention/report",
      tag: "audit",
      summary:
        "Point-in-time retention report: counts by age, held, due for deletion, last and next sweep",
      query: customerQuery,
      responses: {
        200: { description: "RetentionReportResponse", schema: retentionReportResponse },
        ...auditErrors,
      },
      handler: async ({ query, caller }) => {
        const customerId = actingCustomer(who(caller), query.customer_id);
        const r = await ctx.sweeper.report(customerId);
        return {
          status: 200,
          body: {
            object: "retention_report",
            customer_id: customerId,
            generated_at: new Date(ctx.clock.now()).toISOString(),
            metadata_days: r.settings.metadataDays,
            content_days: r.settings.contentDays,
            counts: r.counts,
            last_sweep_at: r.lastSweepAt?.toISOString() ?? null,
            next_sweep_at: r.nextSweepAt?.toISOString() ?? null,
          },
        };
      },
    }),
  ];
}
