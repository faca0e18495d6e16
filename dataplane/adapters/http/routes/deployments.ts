import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import type { Caller } from "../../../core/identity.js";
import { hasRole, REGISTRY_ROLES } from "../../../core/permissions.js";
import { DEPLOYMENT_STATUSES } from "../../../registry/inventory-types.js";
import { errorSchema, idParam, listBody, pageQuery } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { deploymentJson } from "./inventory-json.js";
import { deploymentListResponse, deploymentResponse } from "../response-schemas.js";

/** An OpenAI-compatible base URL including its version path, e.g. http://vllm:8000/v1 */
export const endpointUrl = z
  .string()
  .max(2048)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), "must be an http or https URL")
  .refine((u) => !/[?#]/.test(u), "must not carry a query or fragment")
  .refine(
    (u) => !URL.canParse(u) || !/^[a-z]+:\/\/[^/]*@/i.test(u),
    "must not carry a user name or password (give the backend's credential separately)",
  );

const scaling = z
  .strictObject({
    min_replicas: z.number().int().min(0).max(1000).optional(),
    max_replicas: z.number().int().min(1).max(1000).optional(),
    target_concurrency: z.number().int().min(1).max(100_000).optional(),
  })
  .refine(
    (s) =>
      s.min_replicas === undefined ||
      s.max_replicas === undefined ||
      s.min_replicas <= s.max_replicas,
    { message: "min_replicas must not exceed max_replicas", path: ["min_replicas"] },
  );

const createDeployment = z.strictObject({ model_id: idParam, scaling: scaling.default({}) });
const updateDeployment = z
  .strictObject({
    status: z.enum(DEPLOYMENT_STATUSES).exclude(["terminated"]).optional(),
    endpoint_url: endpointUrl.optional(),
    scaling: scaling.optional(),
    reason: z.string().max(2000).optional(),
  })
  .refine((b) => Object.keys(b).length > 0, "nothing to update");

const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  403: { description: "admin key required", schema: errorSchema },
  404: { description: "no such deployment", schema: errorSchema },
  409: { description: "invalid_state_transition", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
};

export function deploymentRoutes(ctx: AppContext): AnyRouteSpec[] {
  const caller = (c: Caller | undefined) => c as Caller;
  const deployments = ctx.registry.deployments;
  const params = z.object({ deployment_id: idParam });
  return [
    route({
      method: "POST",
      path: "/api/v1/deployments",
      tag: "deployments",
      summary: "Create a deployment of a registered model (starts pending)",
      audit: "deployment.create",
      body: createDeployment.meta({ id: "CreateDeploymentRequest" }),
      responses: {
        201: { description: "created, status pending", schema: deploymentResponse },
        ...errors,
      },
      handler: async ({ body, caller: c }) => ({
        status: 201,
        body: deploymentJson(
          await deployments.create(caller(c), { modelId: body.model_id, scaling: body.scaling }),
        ),
      }),
    }),
    route({
      method: "GET",
      path: "/api/v1/deployments",
      tag: "deployments",
      summary: "List deployments (filters: status, model_id)",
      query: pageQuery.extend({
        status: z.enum(DEPLOYMENT_STATUSES).optional(),
        model_id: idParam.optional(),
      }),
      responses: { 200: { description: "deployments", schema: deploymentListResponse }, ...errors },
      handler: async ({ query, caller: c }) => {
        const rows = await deployments.list(
          { status: query.status, modelId: query.model_id },
          { limit: query.limit + 1, offset: query.offset },
        );
        const show = hasRole(caller(c), REGISTRY_ROLES);
        const data = rows.map((d) => deploymentJson(d, show));
        return { status: 200, body: listBody(data, query.limit) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/deployments/:deployment_id",
      tag: "deployments",
      summary: "Get a deployment",
      params,
      responses: { 200: { description: "the deployment", schema: deploymentResponse }, ...errors },
      handler: async ({ params: p, caller: c }) => ({
        status: 200,
        body: deploymentJson(
          await deployments.get(p.deployment_id),
          hasRole(caller(c), REGISTRY_ROLES),
        ),
      }),
    }),
    route({
      method: "PATCH",
      path: "/api/v1/deployments/:deployment_id",
      tag: "deployments",
      summary: "Move a deployment along its lifecycle; running with endpoint_url makes it routable",
      audit: "deployment.update",
      params,
      body: updateDeployment.meta({ id: "UpdateDeploymentRequest" }),
      responses: { 200: { description: "updated", schema: deploymentResponse }, ...errors },
      handler: async ({ params: p, body, caller: c }) => ({
        status: 200,
        body: deploymentJson(
          await deployments.update(caller(c), p.deployment_id, {
            status: body.status,
            endpointUrl: body.endpoint_url,
            scaling: body.scaling,
            reason: body.reason,
          }),
        ),
      }),
    }),
    route({
      method: "DELETE",
      path: "/api/v1/deployments/:deployment_id",
      tag: "deployments",
      summary: "Terminate a deployment and remove it from routing",
      audit: "deployment.terminate",
      params,
      responses: { 200: { description: "terminated", schema: deploymentResponse }, ...errors },
      handler: async ({ params: p, caller: c }) => ({
        status: 200,
        body: deploymentJson(await deployments.terminate(caller(c), p.deployment_id)),
      }),
    }),
  ];
}
