import { Readable } from "node:stream";
import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import { GatewayError } from "../../../core/errors.js";
import type { Caller } from "../../../core/identity.js";
import { newId } from "../../../core/ids.js";
import type { ExportJob } from "../../../store/export-repository.js";
import { errorSchema, idParam, isoDateTime, listBody } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { actingCustomer } from "./acting-customer.js";
import { exportListResponse, exportResponse } from "../response-schemas.js";

const createExport = z
  .strictObject({ kind: z.enum(["hipaa", "soc2"]), from: isoDateTime, to: isoDateTime })
  .refine((b) => Date.parse(b.from) < Date.parse(b.to), {
    message: "from must be before to",
    path: ["to"],
  });

function exportJson(j: ExportJob) {
  return {
    id: j.id,
    object: "compliance_export" as const,
    customer_id: j.customerId,
    kind: j.kind,
    from: j.from.toISOString(),
    to: j.to.toISOString(),
    status: j.status,
    error: j.error,
    record_count: j.recordCount,
    size_bytes: j.sizeBytes,
    sha256: j.sha256,
    chain_ok: j.chainOk,
    download_url: j.status === "completed" ? `/api/v1/compliance/exports/${j.id}/download` : null,
    created_at: j.createdAt.toISOString(),
    started_at: j.startedAt?.toISOString() ?? null,
    completed_at: j.completedAt?.toISOString() ?? null,
  };
}

const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  404: { description: "no such export (of this customer)", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
};

export function exportRoutes(ctx: AppContext): AnyRouteSpec[] {
  const who = (c: Caller | undefined) => c as Caller;
  const repo = ctx.repos.exports;
  const scope = (c: Caller) => (c.key.role === "admin" ? null : c.customer.id);
  const find = async (c: Caller, id: string) => {
    const job = await repo.get(id, scope(c));
    if (!job) throw new GatewayError("resource_not_found", `export ${id} not found`);
    return job;
  };
  const params = z.object({ export_id: idParam });
  return [
    route({
      method: "POST",
      path: "/api/v1/compliance/exports",
      tag: "compliance",
      summary:
        "Start a HIPAA or SOC 2 evidence export over a date range (queued -> running -> completed | failed)",
      query: z.object({ customer_id: idParam.optional() }),
      body: createExport.meta({ id: "CreateExportRequest" }),
      responses: {
        201: { description: "ExportResponse (queued)", schema: exportResponse },
        ...errors,
      },
      handler: async ({ query, body, caller }) => {
        const customerId = actingCustomer(who(caller), query.customer_id);
        await ctx.audit.caughtUp(); // the export covers every call this replica has answered
        const job = await repo.create({
          id: newId("exp"),
          customerId,
          kind: body.kind,
          from: new Date(body.from),
          to: new Date(body.to),
          createdBy: who(caller).key.id,
        });
        // Recorded before the job can start, so an export's own creation is in a range that covers it.
        await ctx.audit.management(who(caller), "export.create", job.id, body, customerId);
        void ctx.exportJobs.runPending();
        return { status: 201, body: exportJson(job) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/compliance/exports",
      tag: "compliance",
      summary: "The caller's customer's exports, newest first",
      query: z.object({
        customer_id: idParam.optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(20),
        offset: z.coerce.number().int().min(0).default(0),
      }),
      responses: {
        200: { description: "ExportListResponse", schema: exportListResponse },
        ...errors,
      },
      handler: async ({ query, caller }) => {
        const customerId = actingCustomer(who(caller), query.customer_id);
        const rows = await repo.list(customerId, { limit: query.limit + 1, offset: query.offset });
        return { status: 200, body: listBody(rows.map(exportJson), query.limit) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/compliance/exports/:export_id",
      tag: "compliance",
      summary: "An export's status",
      params,
      responses: { 200: { description: "ExportResponse", schema: exportResponse }, ...errors },
      handler: async ({ params: p, caller }) => ({
        status: 200,
        body: exportJson(await find(who(caller), p.export_id)),
      }),
    }),
    route({
      method: "DELETE",
      path: "/api/v1/compliance/exports/:export_id",
      tag: "compliance",
      summary: "Delete an export and its bundle",
      audit: "export.delete",
      params,
      responses: { 204: { description: "deleted" }, ...errors },
      handler: async ({ params: p, caller }) => {
        if (!(await repo.delete(p.export_id, scope(who(caller))))) {
          throw new GatewayError("resource_not_found", `export ${p.export_id} not found`);
        }
        return { status: 204 };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/compliance/exports/:export_id/download",
      tag: "compliance",
      summary: "The evidence bundle (tar.gz), streamed",
      params,
      responses: {
        200: { description: "evidence bundle (tar.gz)", contentType: "application/gzip" },
        409: { description: "the export is not completed", schema: errorSchema },
        ...errors,
      },
      handler: async ({ params: p, caller, reply }) => {
        const job = await find(who(caller), p.export_id);
        if (job.status !== "completed") {
          throw new GatewayError(
            "resource_conflict",
            `export ${job.id} is ${job.status}; download it once completed`,
          );
        }
        reply.header("content-type", "application/gzip");
        reply.header(
          "content-disposition",
          `attachment; filename="evident-${job.kind}-${job.id}.tar.gz"`,
        );
        if (job.sizeBytes !== null) reply.header("content-length", String(job.sizeBytes));
        if (job.sha256) reply.header("x-evident-bundle-sha256", job.sha256);
        return { status: 200, body: Readable.from(repo.chunks(job.id)) };
      },
    }),
  ];
}
