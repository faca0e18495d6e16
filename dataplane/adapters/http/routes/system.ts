import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import type { Caller } from "../../../core/identity.js";
import { PLATFORM_ROLES, requireRole } from "../../../core/permissions.js";
import { errorSchema } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { readinessResponse } from "../response-schemas.js";

const countsSchema = z.object({
  total: z.number().int(),
  by_status: z.record(z.string(), z.number()),
});

const healthSchema = z
  .object({
    status: z.enum(["ok", "degraded"]),
    version: z.string(),
    uptime_seconds: z.number(),
    models: countsSchema,
    deployments: countsSchema,
  })
  .meta({ id: "HealthResponse" });

const systemHealthSchema = z
  .object({
    status: z.enum(["ok", "degraded"]),
    checks: z.record(z.string(), z.boolean()),
    store: z.object({ kind: z.string(), reachable: z.boolean() }),
    shared_state: z.object({ kind: z.string(), reachable: z.boolean() }),
    models: countsSchema,
    deployments: countsSchema,
    backends: z.array(z.object({ id: z.string(), healthy: z.boolean() })),
  })
  .meta({ id: "SystemHealthResponse" });

export const VERSION = "0.1.0";

/** Evaluates every readiness check; a check that throws counts as failed. */
export async function readinessReport(ctx: AppContext) {
  const checks: Record<string, boolean> = {};
  for (const [name, check] of ctx.readiness) {
    try {
      checks[name] = await check();
    } catch {
      checks[name] = false;
    }
  }
  return { ready: Object.values(checks).every(Boolean), checks };
}

/** Model and deployment counts; filled in by the registry once it exists. */
export type InventoryCounts = () => Promise<{
  models: z.infer<typeof countsSchema>;
  deployments: z.infer<typeof countsSchema>;
  backends: { id: string; healthy: boolean }[];
}>;

const emptyCounts: InventoryCounts = async () => ({
  models: { total: 0, by_status: {} },
  deployments: { total: 0, by_status: {} },
  backends: [],
});

export function systemRoutes(
  ctx: AppContext,
  inventory: InventoryCounts = emptyCounts,
): AnyRouteSpec[] {
  const uptime = () => Math.round((ctx.clock.now() - ctx.startedAt) / 1000);
  const unauthorized = { 401: { description: "missing or invalid API key", schema: errorSchema } };
  return [
    route({
      method: "GET",
      path: "/healthz",
      tag: "probes",
      summary: "Liveness: always 200 while the process serves HTTP",
      auth: false,
      responses: { 200: { description: "alive", schema: z.object({ status: z.literal("ok") }) } },
      handler: async () => ({ status: 200, body: { status: "ok" } }),
    }),
    route({
      method: "GET",
      path: "/readyz",
      tag: "probes",
      summary: "Readiness: 200 when the store is migrated and reachable and models are loaded",
      auth: false,
      responses: {
        200: { description: "ready", schema: readinessResponse },
        503: { description: "not ready; `checks` says which condition fails" },
      },
      handler: async () => {
        const report = await readinessReport(ctx);
        return {
          status: report.ready ? 200 : 503,
          body: { status: report.ready ? "ready" : "not_ready", checks: report.checks },
        };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/health",
      tag: "system",
      summary: "Model counts, deployment counts and uptime",
      responses: { 200: { description: "health", schema: healthSchema }, ...unauthorized },
      handler: async () => {
        const [report, inv] = await Promise.all([readinessReport(ctx), inventory()]);
        return {
          status: 200,
          body: {
            status: report.ready ? "ok" : "degraded",
            version: VERSION,
            uptime_seconds: uptime(),
            models: inv.models,
            deployments: inv.deployments,
          },
        };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/system/health",
      tag: "system",
      summary: "Registry snapshot and backend liveness",
      responses: { 200: { description: "snapshot", schema: systemHealthSchema }, ...unauthorized },
      handler: async () => {
        const [report, inv, storeUp] = await Promise.all([
          readinessReport(ctx),
          inventory(),
          ctx.db.ping(),
        ]);
        return {
          status: 200,
          body: {
            status: report.ready ? "ok" : "degraded",
            checks: report.checks,
            store: { kind: ctx.db.kind, reachable: storeUp },
            shared_state: {
              kind: ctx.redis ? "redis" : "memory",
              reachable: ctx.redis ? ctx.redis.isReady() : true,
            },
            ...inv,
          },
        };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/system/metrics",
      tag: "system",
      summary: "Platform-wide metrics in Prometheus text format (admin keys only)",
      responses: {
        200: { description: "Prometheus text exposition", contentType: "text/plain" },
        ...unauthorized,
        403: { description: "not an admin key", schema: errorSchema },
      },
      handler: async ({ caller }) => {
        requireRole(caller as Caller, PLATFORM_ROLES, "read platform-wide metrics");
        return {
          status: 200,
          headers: { "content-type": ctx.metrics.registry.contentType },
          body: await ctx.metrics.registry.metrics(),
        };
      },
    }),
  ];
}
