import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { newId } from "../../../core/ids.js";
import {
  actsForAnyCustomer,
  LEGAL_HOLD_ROLES,
  requireRole,
  RETENTION_ROLES,
} from "../../../core/permissions.js";
import type { LegalHold } from "../../../store/retention-repository.js";
import { errorSchema, idParam, isoDateTime, listBody, pageQuery } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import {
  auditRecordListResponse,
  auditVerificationResponse,
  legalHoldListResponse,
  legalHoldResponse,
  retentionReportResponse,
  retentionResponse,
} from "../response-schemas.js";

/** Admins may act for another customer with ?customer_id=; everyone else acts for their own. */
const customerQuery = z.object({ customer_id: idParam.optional() });

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

const retentionBody = z
  .strictObject({
    metadata_days: z.number().int().min(1).max(36_500).optional(),
    content_days: z.number().int().min(0).max(36_500).optional(),
    content_mode: z.enum(["none", "redacted", "full"]).optional(),
  })
  .refine((b) => Object.keys(b).length > 0, "nothing to update");

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

const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  403: {
    description: "the key's role may not do this (see the roles table in docs/api.md)",
    schema: errorSchema,
  },
  422: { description: "validation failed", schema: errorSchema },
};

export function auditRoutes(ctx: AppContext): AnyRouteSpec[] {
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
      path: "/api/v1/audit/records",
      tag: "audit",
      summary:
        "Audit records of the caller's customer (filters: from, to, model, outcome, request_id, kind)",
      query: pageQuery.extend({
        customer_id: idParam.optional(),
        from: isoDateTime.optional(),
        to: isoDateTime.optional(),
        model: z.string().max(256).optional(),
        outcome: z.string().max(64).optional(),
        request_id: z.string().max(128).optional(),
        kind: z.enum(["inference", "management"]).optional(),
      }),
      responses: {
        200: { description: "records, newest first", schema: auditRecordListResponse },
        ...errors,
      },
      handler: async ({ query, caller }) => {
        const customerId = actingCustomer(who(caller), query.customer_id);
        await ctx.audit.caughtUp();
        const rows = await ctx.repos.audit.list(
          {
            customerId,
            from: query.from ? new Date(query.from) : undefined,
            to: query.to ? new Date(query.to) : undefined,
            model: query.model,
            outcome: query.outcome,
            requestId: query.request_id,
            kind: query.kind,
          },
          { limit: query.limit + 1, offset: query.offset },
        );
        const data = rows.map((r) => ({
          ...(r.fields ?? { id: r.id, customer_id: r.customer_id }),
          object: "audit_record",
          seq: r.seq,
          hash: r.hash,
          deleted: r.fields === null,
          content: r.content,
        }));
        return { status: 200, body: listBody(data, query.limit) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/audit/verify",
      tag: "audit",
      summary:
        "Verify the customer's hash chain (optionally over from/to): ok, and the first broken link",
      query: customerQuery.extend({ from: isoDateTime.optional(), to: isoDateTime.optional() }),
      responses: {
        200: { description: "verification report", schema: auditVerificationResponse },
        ...errors,
      },
      handler: async ({ query, caller }) => {
        const customerId = actingCustomer(who(caller), query.customer_id);
        const report = await ctx.audit.verify(
          customerId,
          query.from ? new Date(query.from) : null,
          query.to ? new Date(query.to) : null,
        );
        return {
          status: 200,
          body: { object: "audit_verification", customer_id: customerId, ...report },
        };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/audit/retention",
      tag: "audit",
      summary: "Retention of the caller's audit records and content",
      query: customerQuery,
      responses: {
        200: { description: "RetentionResponse", schema: retentionResponse },
        ...errors,
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
        ...errors,
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
        ...errors,
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
    route({
      method: "GET",
      path: "/api/v1/audit/legal-hold",
      tag: "audit",
      summary: "Legal holds of the caller's customer",
      query: customerQuery.extend({ active_only: z.enum(["true", "false"]).default("false") }),
      responses: {
        200: { description: "LegalHoldListResponse", schema: legalHoldListResponse },
        ...errors,
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
        ...errors,
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
        ...errors,
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
