import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import type { Caller } from "../../../core/identity.js";
import { errorSchema, idParam, isoDateTime, listBody, pageQuery } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { auditRecordListResponse, auditVerificationResponse } from "../response-schemas.js";
import { actingCustomer, customerQuery } from "./acting-customer.js";

/** The error answers every audit, retention and legal-hold route documents. */
export const auditErrors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  403: {
    description: "the key's role may not do this (see the roles table in docs/api.md)",
    schema: errorSchema,
  },
  422: { description: "validation failed", schema: errorSchema },
};

/** The audit records of a customer and the verification of their hash chain. */
export function auditRoutes(ctx: AppContext): AnyRouteSpec[] {
  const who = (c: Caller | undefined) => c as Caller;
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
        ...auditErrors,
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
        ...auditErrors,
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
  ];
}
