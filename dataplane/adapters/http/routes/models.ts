import { z } from "zod";
import type { AppContext } from "../../../app/context.js";
import { TIERS, type Caller } from "../../../core/identity.js";
import { MODALITIES, MODEL_STATUSES } from "../../../registry/inventory-types.js";
import { displayName, errorSchema, idParam, listBody, pageQuery } from "../common-schemas.js";
import { route, type AnyRouteSpec } from "../route-table.js";
import { modelJson } from "./inventory-json.js";
import { modelListResponse, modelResponse } from "../response-schemas.js";

const slug = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/, "letters, digits and . _ : / @ - only");

const registerModel = z.strictObject({
  name: slug,
  version: z
    .string()
    .trim()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._+-]*$/, "letters, digits and . _ + - only"),
  architecture: displayName.nullable().default(null),
  modality: z.enum(MODALITIES).default("text"),
  aliases: z.array(slug).max(32).default([]),
  required_tier: z.enum(TIERS).default("free"),
  pricing: z
    .strictObject({
      input_per_1k: z.number().min(0).max(1000),
      output_per_1k: z.number().min(0).max(1000),
    })
    .default({ input_per_1k: 0, output_per_1k: 0 }),
  context_window: z.number().int().min(1).max(100_000_000).nullable().default(null),
  engine_artifacts: z.record(z.string(), z.unknown()).default({}),
});

const FROZEN = [
  "name",
  "version",
  "architecture",
  "modality",
  "aliases",
  "required_tier",
  "pricing",
  "context_window",
];

const updateModel = z
  .looseObject({
    status: z.enum(MODEL_STATUSES).exclude(["deregistered"]).optional(),
    engine_artifacts: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((body, ctx) => {
    for (const key of Object.keys(body)) {
      if (key === "status" || key === "engine_artifacts") continue;
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: FROZEN.includes(key)
          ? `${key} is frozen after registration; register a new version instead`
          : `unknown field ${key}; only status and engine_artifacts may change`,
      });
    }
    if (body.status === undefined && body.engine_artifacts === undefined) {
      ctx.addIssue({
        code: "custom",
        path: [],
        message: "nothing to update: send status and/or engine_artifacts",
      });
    }
  });

const modelFilter = pageQuery.extend({
  status: z.enum(MODEL_STATUSES).optional(),
  architecture: z.string().max(200).optional(),
  modality: z.enum(MODALITIES).optional(),
  name: z.string().max(128).optional(),
});

const errors = {
  401: { description: "missing or invalid API key", schema: errorSchema },
  403: { description: "admin key required", schema: errorSchema },
  404: { description: "no such model", schema: errorSchema },
  422: { description: "validation failed", schema: errorSchema },
};

export function modelRoutes(ctx: AppContext): AnyRouteSpec[] {
  const caller = (c: Caller | undefined) => c as Caller;
  const models = ctx.registry.models;
  const params = z.object({ model_id: idParam });
  return [
    route({
      method: "POST",
      path: "/api/v1/models",
      tag: "models",
      summary: "Register a model version (name+version is unique and immutable)",
      audit: "model.register",
      body: registerModel.meta({ id: "RegisterModelRequest" }),
      responses: {
        201: { description: "registered", schema: modelResponse },
        409: { description: "model_version_exists", schema: errorSchema },
        ...errors,
      },
      handler: async ({ body, caller: c }) => ({
        status: 201,
        body: modelJson(
          await models.register(caller(c), {
            name: body.name,
            version: body.version,
            architecture: body.architecture,
            modality: body.modality,
            aliases: body.aliases,
            requiredTier: body.required_tier,
            pricing: {
              inputPer1k: body.pricing.input_per_1k,
              outputPer1k: body.pricing.output_per_1k,
            },
            contextWindow: body.context_window,
            engineArtifacts: body.engine_artifacts,
          }),
        ),
      }),
    }),
    route({
      method: "GET",
      path: "/api/v1/models",
      tag: "models",
      summary: "List models (filters: status, architecture, modality, name)",
      query: modelFilter,
      responses: { 200: { description: "models", schema: modelListResponse }, ...errors },
      handler: async ({ query }) => {
        const { limit, offset, ...filter } = query;
        const rows = await models.list(filter, { limit: limit + 1, offset });
        return { status: 200, body: listBody(rows.map(modelJson), limit) };
      },
    }),
    route({
      method: "GET",
      path: "/api/v1/models/:model_id",
      tag: "models",
      summary: "Get a model",
      params,
      responses: { 200: { description: "the model", schema: modelResponse }, ...errors },
      handler: async ({ params: p }) => ({
        status: 200,
        body: modelJson(await models.get(p.model_id)),
      }),
    }),
    route({
      method: "PATCH",
      path: "/api/v1/models/:model_id",
      tag: "models",
      summary:
        "Change a model's status or engine_artifacts (build-pipeline callback); every other field is frozen",
      audit: "model.update",
      params,
      body: updateModel.meta({ id: "UpdateModelRequest" }),
      responses: {
        200: { description: "updated", schema: modelResponse },
        409: { description: "deregistered", schema: errorSchema },
        ...errors,
      },
      handler: async ({ params: p, body, caller: c }) => ({
        status: 200,
        body: modelJson(
          await models.update(caller(c), p.model_id, {
            status: body.status,
            engineArtifacts: body.engine_artifacts as Record<string, unknown> | undefined,
          }),
        ),
      }),
    }),
    route({
      method: "DELETE",
      path: "/api/v1/models/:model_id",
      tag: "models",
      summary: "Deregister a model (refused with 409 while it has active deployments)",
      audit: "model.deregister",
      params,
      responses: {
        200: { description: "deregistered", schema: modelResponse },
        409: { description: "model_has_active_deployments", schema: errorSchema },
        ...errors,
      },
      handler: async ({ params: p, caller: c }) => ({
        status: 200,
        body: modelJson(await models.deregister(caller(c), p.model_id)),
      }),
    }),
  ];
}
