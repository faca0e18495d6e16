import { buildOpenApi, openApiDocumentSchema } from "../adapters/http/openapi.js";
import { route, type AnyRouteSpec } from "../adapters/http/route-table.js";
import { accountRoutes } from "../adapters/http/routes/accounts.js";
import { legalHoldRoutes } from "../adapters/http/routes/audit-legal-holds.js";
import { retentionRoutes } from "../adapters/http/routes/audit-retention.js";
import { auditRoutes } from "../adapters/http/routes/audit.js";
import { backendRoutes } from "../adapters/http/routes/backends.js";
import { batchRoutes } from "../adapters/http/routes/batches.js";
import { cacheRoutes } from "../adapters/http/routes/cache.js";
import { compatRoutes } from "../adapters/http/routes/compat.js";
import { deploymentRoutes } from "../adapters/http/routes/deployments.js";
import { exportRoutes } from "../adapters/http/routes/exports.js";
import { fileRoutes } from "../adapters/http/routes/files.js";
import { guardrailRoutes } from "../adapters/http/routes/guardrails.js";
import { modelRoutes } from "../adapters/http/routes/models.js";
import { promptRoutes } from "../adapters/http/routes/prompts.js";
import { ragCollectionRoutes } from "../adapters/http/routes/rag-collections.js";
import { ragDocumentRoutes } from "../adapters/http/routes/rag-documents.js";
import { ragSearchRoutes } from "../adapters/http/routes/rag-search.js";
import { realtimeRoutes } from "../adapters/http/routes/realtime.js";
import { routeRoutes } from "../adapters/http/routes/routes.js";
import { systemRoutes } from "../adapters/http/routes/system.js";
import type { BatchRunner } from "../batches/batch-runner.js";
import type { AppContext } from "./context.js";

/** What the route groups need beyond the app context. */
export interface RouteSources {
  /** Model, deployment and backend counts for the system routes. */
  inventory: Parameters<typeof systemRoutes>[1];
  limitRoutes: (ctx: AppContext) => AnyRouteSpec[];
  analyticsRoutes: () => AnyRouteSpec[];
  batchRunner: BatchRunner;
}

/** Every REST route, plus `/openapi.json` generated from all of them. */
export function allRoutes(ctx: AppContext, sources: RouteSources): AnyRouteSpec[] {
  const routes: AnyRouteSpec[] = [
    ...systemRoutes(ctx, sources.inventory),
    ...accountRoutes(ctx),
    ...modelRoutes(ctx),
    ...deploymentRoutes(ctx),
    ...backendRoutes(ctx),
    ...compatRoutes(ctx),
    ...auditRoutes(ctx),
    ...retentionRoutes(ctx),
    ...legalHoldRoutes(ctx),
    ...guardrailRoutes(ctx),
    ...exportRoutes(ctx),
    ...routeRoutes(ctx),
    ...sources.limitRoutes(ctx),
    ...sources.analyticsRoutes(),
    ...promptRoutes(ctx),
    ...cacheRoutes(ctx),
    ...ragSearchRoutes(ctx),
    ...fileRoutes(ctx),
    ...batchRoutes(ctx, sources.batchRunner),
    ...ragCollectionRoutes(ctx),
    ...ragDocumentRoutes(ctx),
    ...realtimeRoutes(),
  ];
  const openApiRoute = route({
    method: "GET",
    path: "/openapi.json",
    tag: "meta",
    summary: "This API's OpenAPI description (version 0.1.0)",
    responses: { 200: { description: "OpenAPI 3 document", schema: openApiDocumentSchema } },
    handler: async () => ({ status: 200, body: document }),
  });
  routes.push(openApiRoute);
  const document = buildOpenApi(routes);
  return routes;
}
