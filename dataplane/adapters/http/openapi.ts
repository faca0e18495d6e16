import { z } from "zod";
import { errorSchema, httpValidationErrorSchema } from "./common-schemas.js";
import { VERSION } from "./routes/system.js";
import type { AnyRouteSpec, ResponseSpec } from "./route-table.js";

type JsonSchema = Record<string, unknown>;

/** The document itself, as /openapi.json's response schema. */
export const openApiDocumentSchema = z
  .looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) })
  .meta({ id: "OpenAPIDocument" });
type Io = "input" | "output";

/**
 * Named schemas (zod 4 `.meta({ id })`) become `components.schemas` entries referenced with `$ref`;
 * an id whose input and output shapes differ gets its output under `<id>Output`.
 */
class ComponentSchemas {
  readonly schemas: Record<string, JsonSchema> = {};

  /** The JSON Schema of `schema`, its named parts moved into the components. */
  convert(schema: z.ZodType, io: Io): JsonSchema {
    const converted = z.toJSONSchema(schema, {
      io,
      unrepresentable: "any",
      target: "openapi-3.0",
    }) as JsonSchema;
    const definitions = (converted.definitions ?? {}) as Record<string, JsonSchema>;
    delete converted.definitions;
    const names = new Map<string, string>();
    for (const [id, def] of Object.entries(definitions)) names.set(id, this.place(id, def, io));
    for (const [id, def] of Object.entries(definitions)) {
      this.schemas[names.get(id) as string] = rewriteRefs(def, names) as JsonSchema;
    }
    return rewriteRefs(converted, names) as JsonSchema;
  }

  private place(id: string, def: JsonSchema, io: Io): string {
    const existing = this.schemas[id];
    if (!existing || sameShape(existing, def)) return id;
    const alternative = `${id}${io === "output" ? "Output" : "Input"}`;
    return alternative;
  }
}

function sameShape(a: unknown, b: unknown): boolean {
  return JSON.stringify(stripRefs(a)) === JSON.stringify(stripRefs(b));
}

function stripRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripRefs);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, k === "$ref" ? "ref" : stripRefs(v)]),
    );
  }
  return value;
}

function rewriteRefs(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, names));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string" && v.startsWith("#/definitions/")) {
        const id = v.slice("#/definitions/".length);
        out[k] = `#/components/schemas/${names.get(id) ?? id}`;
      } else out[k] = rewriteRefs(v, names);
    }
    return out;
  }
  return value;
}

function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function parameters(spec: AnyRouteSpec, components: ComponentSchemas): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [
    ["path", spec.params],
    ["query", spec.query],
  ] as const) {
    if (!schema) continue;
    const js = components.convert(schema, "input");
    const props = (js.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((js.required ?? []) as string[]);
    for (const [name, prop] of Object.entries(props)) {
      out.push({ name, in: where, required: where === "path" || required.has(name), schema: prop });
    }
  }
  return out;
}

const ERROR_REF = { $ref: "#/components/schemas/ErrorResponse" };
const VALIDATION_REF = { $ref: "#/components/schemas/HTTPValidationError" };

/**
 * The error responses every operation of a kind can give, whatever its own spec declares: the
 * envelope for each (422 as HTTPValidationError). A route's own descriptions take precedence.
 */
function sharedErrors(spec: AnyRouteSpec): Record<string, string> {
  const errors: Record<string, string> = {};
  if (spec.body || spec.rawBody) {
    errors[400] = "malformed request body (invalid JSON)";
    errors[413] = "request body over the limit";
    errors[415] = "unsupported Content-Type";
  }
  if (spec.params) {
    errors[404] = "no such resource (or not visible to this key)";
    errors[414] = "a path segment over 100 characters";
  }
  if (spec.body || spec.query || spec.params || spec.rawBody) {
    errors[422] = "validation failed (HTTPValidationError)";
  }
  if (spec.auth !== false) {
    errors[401] = "missing, invalid or revoked API key";
    errors[403] = "the key's role may not call this route";
    if (spec.body || spec.rawBody)
      errors[408] = "the body did not arrive in time (request_timeout)";
    errors[429] = "rate limit exceeded (Retry-After)";
    errors[503] = "the store is unreachable or evidence cannot be recorded; retry later";
  }
  return errors;
}

function documentResponse(
  status: string,
  r: ResponseSpec,
  components: ComponentSchemas,
): JsonSchema {
  if (r.contentType) {
    const schema = r.schema
      ? components.convert(r.schema, "output")
      : { type: "string", ...(r.contentType.startsWith("text/") ? {} : { format: "binary" }) };
    return { description: r.description, content: { [r.contentType]: { schema } } };
  }
  const isError = Number(status) >= 400;
  const schema = r.schema
    ? status === "422"
      ? VALIDATION_REF
      : components.convert(r.schema, "output")
    : isError
      ? ERROR_REF
      : undefined;
  return schema
    ? { description: r.description, content: { "application/json": { schema } } }
    : { description: r.description };
}

/** The OpenAPI 3 description, generated from the same zod schemas the handlers validate with. */
export function buildOpenApi(routes: readonly AnyRouteSpec[]): JsonSchema {
  const components = new ComponentSchemas();
  components.convert(errorSchema, "output");
  components.convert(httpValidationErrorSchema, "output");
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const spec of routes) {
    const responses: Record<string, JsonSchema> = {};
    for (const [status, description] of Object.entries(sharedErrors(spec))) {
      responses[status] = {
        description,
        content: { "application/json": { schema: status === "422" ? VALIDATION_REF : ERROR_REF } },
      };
    }
    for (const [status, r] of Object.entries(spec.responses)) {
      responses[status] = documentResponse(status, r, components);
    }
    const op: JsonSchema = {
      summary: spec.summary,
      tags: [spec.tag],
      operationId: `${spec.method.toLowerCase()}${openApiPath(spec.path).replace(/[^A-Za-z0-9]+/g, "_")}`,
      parameters: parameters(spec, components),
      responses: Object.fromEntries(
        Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)),
      ),
      security: spec.auth === false ? [] : [{ bearerAuth: [] }],
    };
    if (spec.body) {
      op.requestBody = {
        required: true,
        content: { "application/json": { schema: components.convert(spec.body, "input") } },
      };
    } else if (spec.requestBodies) {
      op.requestBody = {
        required: true,
        content: Object.fromEntries(
          Object.entries(spec.requestBodies).map(([type, schema]) => [
            type,
            { schema: components.convert(schema, "input") },
          ]),
        ),
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
      schemas: Object.fromEntries(
        Object.entries(components.schemas).sort(([a], [b]) => a.localeCompare(b)),
      ),
    },
    security: [{ bearerAuth: [] }],
    paths,
  };
}
