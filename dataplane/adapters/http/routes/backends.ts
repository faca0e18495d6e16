import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import { tierRank, type Caller } from "../../../core/identity.js";
import { displayName, errorSchema, idParam } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { endpointUrl } from "./deployments.js";
import { backendJson } from "./inventory-json.js";
import { backendListResponse, backendResponse, catalogResponse } from "../response-schemas.js";

const modelNames = z.array(z.string().trim().min(1).max(128)).min(1).max(256);
const credential = z.string().min(1).max(8192);

const registerBackend = z.strictObject({
  name: displayName,
  base_url: endpointUrl,
  credential: credential.optional(),
  models: modelNames,
  enabled: z.boolean().default(true),
});
const updateBackend = z
  .strictObject({
    name: displayName.optional(),
    base_url: endpointUrl.optional(),
    credential: credential.nullable().optional(),
    models: modelNames.optional(),
    enabled: z.boolean().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, "nothing to update");

const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  404: { description: "no such backend (of this customer)", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
};

export function backendRoutes(ctx: AppContext): AnyRouteSpec[] {
  const caller = (c: Caller | undefined) => c as Caller;
  const backends = ctx.registry.backends;
  const params = z.object({ backend_id: idParam });
  return [
    route({
      method: "GET",
      path: "/api/v1/gateway/backends",
      tag: "gateway",
      summary: "Backends of the caller's customer, with their passive health",
      responses: { 200: { description: "backends", schema: backendListResponse }, ...errors },
      handler: async ({ caller: c }) => {
        const rows = await backends.list(caller(c));
        const data = rows.map((b) => ({ ...backendJson(b), healthy: ctx.health.isHealthy(b.id) }));
        return { status: 200, body: { object: "list", data, has_more: false } };
      },
    }),
    route({
      method: "POST",
      path: "/api/v1/gateway/backends",
      tag: "gateway",
      summary:
        "Register an OpenAI-compatible backend; its credential is encrypted and never returned",
      audit: "backend.register",
      body: registerBackend.meta({ id: "RegisterBackendRequest" }),
      responses: { 201: { description: "registered", schema: backendResponse }, ...errors },
      handler: async ({ body, caller: c }) => ({
        status: 201,
        body: backendJson(
          await backends.register(caller(c), {
            name: body.name,
            baseUrl: body.base_url,
            credential: body.credential,
            models: body.models,
            enabled: body.enabled,
          }),
        ),
      }),
    }),
    route({
      method: "PATCH",
      path: "/api/v1/gateway/backends/:backend_id",
      tag: "gateway",
      summary: "Change a backend (credential: null removes it)",
      audit: "backend.update",
      params,
      body: updateBackend.meta({ id: "UpdateBackendRequest" }),
      responses: { 200: { description: "updated", schema: backendResponse }, ...errors },
      handler: async ({ params: p, body, caller: c }) => ({
        status: 200,
        body: backendJson(
          await backends.update(caller(c), p.backend_id, {
            name: body.name,
            baseUrl: body.base_url,
            credential: body.credential,
            models: body.models,
            enabled: body.enabled,
          }),
        ),
      }),
    }),
    route({
      method: "DELETE",
      path: "/api/v1/gateway/backends/:backend_id",
      tag: "gateway",
      summary: "Remove a backend from routing",
      audit: "backend.remove",
      params,
      responses: { 200: { description: "removed", schema: backendResponse }, ...errors },
      handler: async ({ params: p, caller: c }) => ({
        status: 200,
        body: { ...backendJson(await backends.remove(caller(c), p.backend_id)), deleted: true },
      }),
    }),
    route({
      method: "GET",
      path: "/api/v1/gateway/catalog",
      tag: "gateway",
      summary: "Every model the caller can route to, with its tier requirement and pricing",
      responses: { 200: { description: "catalogue", schema: catalogResponse }, ...errors },
      handler: async ({ caller: c }) => {
        const who = caller(c);
        const data = ctx.routing.current.list(who.customer.id).map((m) => ({
          model: m.name,
          aliases: m.aliases,
          modality: m.modality,
          required_tier: m.requiredTier,
          available_to_caller: tierRank(who.customer.tier) >= tierRank(m.requiredTier),
          pricing: { input_per_1k: m.pricing.inputPer1k, output_per_1k: m.pricing.outputPer1k },
          context_window: m.contextWindow,
          version: m.model?.version ?? null,
          targets: m.targets.length,
        }));
        return { status: 200, body: { object: "list", data, has_more: false } };
      },
    }),
  ];
}
