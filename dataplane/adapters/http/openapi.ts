import { z } from "zod";
import { VERSION } from "./routes/system.js";
import type { AnyRouteSpec } from "./route-table.js";
import { errorSchema } from "./common-schemas.js";

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    target: "openapi-3.0",
  }) as JsonSchema;
}

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function parameters(spec: AnyRouteSpec): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [
    ["path", spec.params],
    ["query", spec.query],
  ] as const) {
    if (!schema) continue;
    const js = jsonSchema(schema, "input");
    const props = (js.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((js.required ?? []) as string[]);
    for (const [name, prop] of Object.entries(props)) {
      out.push({ name, in: where, required: where === "path" || required.has(name), schema: prop });
    }
  }
  return out;
}

/** Responses every authenticated route can give, whether or not its spec names them. */
function implied(spec: AnyRouteSpec): AnyRouteSpec["responses"] {
  if (spec.auth === false) return {};
  const out: AnyRouteSpec["responses"] = {
    403: { description: "the key's role may not call this route", schema: errorSchema },
  };
  if (spec.body || spec.rawBody) {
    out[408] = {
      description: "the body did not arrive in time (request_timeout)",
      schema: errorSchema,
    };
  }
  return out;
}

/** The OpenAPI 3 description, generated from the same zod schemas the handlers validate with. */
export function buildOpenApi(routes: readonly AnyRouteSpec[]): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const spec of routes) {
    const responses: Record<string, JsonSchema> = {};
    for (const [status, r] of Object.entries({ ...implied(spec), ...spec.responses })) {
      responses[status] = r.schema
        ? {
            description: r.description,
            content: { "application/json": { schema: jsonSchema(r.schema, "output") } },
          }
        : { description: r.description };
    }
    const op: JsonSchema = {
      summary: spec.summary,
      tags: [spec.tag],
      operationId: `${spec.method.toLowerCase()}${openApiPath(spec.path).replace(/[^A-Za-z0-9]+/g, "_")}`,
      parameters: parameters(spec),
      responses,
      security: spec.auth === false ? [] : [{ bearerAuth: [] }],
    };
    if (spec.body) {
      op.requestBody = {
        required: true,
        content: { "application/json": { schema: jsonSchema(spec.body, "input") } },
      };
    }
    const key = openApiPath(spec.path);
    paths[key] = { ...(paths[key] ?? {}), [spec.method.toLowerCase()]: op };
  }
  return {
    openapi: "3.0.3",
    info: {
      title: "Evident",
      version: VERSION,
      description: "Continuous-compliance gateway for AI inference",
    },
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "ev_sk_..." },
      },
    },
    security: [{ bearerAuth: [] }],
    paths,
  };
}
