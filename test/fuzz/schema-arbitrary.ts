import fc from "fast-check";

export type JsonSchema = Record<string, unknown>;

/** An OpenAPI document's parts the harness reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema> };
}

export interface OpenApiOperation {
  operationId: string;
  parameters?: { name: string; in: "path" | "query"; required: boolean; schema: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, unknown>;
  security?: unknown[];
}

const MAX_DEPTH = 6;

/** Follows a `#/components/schemas/X` reference. */
export function resolve(schema: JsonSchema, doc: OpenApiDocument): JsonSchema {
  let current = schema;
  for (let i = 0; i < 10 && typeof current.$ref === "string"; i++) {
    const name = current.$ref.split("/").pop() ?? "";
    current = doc.components.schemas[name] ?? {};
  }
  return current;
}

/** Values valid for `schema` as the document describes it (small, to keep runs fast). */
export function validValue(
  schema: JsonSchema,
  doc: OpenApiDocument,
  depth = 0,
): fc.Arbitrary<unknown> {
  const s = resolve(schema, doc);
  const base = baseArbitrary(s, doc, depth);
  return s.nullable === true ? fc.option(base, { nil: null }) : base;
}

function baseArbitrary(s: JsonSchema, doc: OpenApiDocument, depth: number): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH) return fc.constant(null);
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...(s.enum as unknown[]));
  if ("const" in s) return fc.constant(s.const);
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = s[key];
    if (Array.isArray(options) && options.length > 0) {
      return fc.oneof(...(options as JsonSchema[]).map((o) => validValue(o, doc, depth + 1)));
    }
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) {
    return validValue(s.allOf[0] as JsonSchema, doc, depth + 1);
  }
  switch (s.type) {
    case "string":
      return stringFor(s);
    case "integer":
      return fc.integer({ min: bound(s, "min", -1000), max: bound(s, "max", 1000) });
    case "number":
      return fc.double({
        min: bound(s, "min", -1000),
        max: bound(s, "max", 1000),
        noNaN: true,
        noDefaultInfinity: true,
      });
    case "boolean":
      return fc.boolean();
    case "array": {
      const items = (s.items ?? {}) as JsonSchema;
      const minLength = typeof s.minItems === "number" ? s.minItems : 0;
      const maxLength = Math.max(
        minLength,
        Math.min(typeof s.maxItems === "number" ? s.maxItems : 3, 3),
      );
      return fc.array(validValue(items, doc, depth + 1), { minLength, maxLength });
    }
    case "object":
      return objectFor(s, doc, depth);
    default:
      return s.properties ? objectFor(s, doc, depth) : fc.jsonValue({ maxDepth: 2 });
  }
}

function bound(s: JsonSchema, side: "min" | "max", fallback: number): number {
  const inclusive = side === "min" ? s.minimum : s.maximum;
  const exclusive = side === "min" ? s.exclusiveMinimum : s.exclusiveMaximum;
  if (typeof exclusive === "number") return side === "min" ? exclusive + 1 : exclusive - 1;
  if (typeof inclusive === "number") {
    if (exclusive === true) return side === "min" ? inclusive + 1 : inclusive - 1;
    return Math.max(-1e9, Math.min(1e9, inclusive));
  }
  return fallback;
}

function stringFor(s: JsonSchema): fc.Arbitrary<string> {
  const minLength = typeof s.minLength === "number" ? s.minLength : 0;
  const maxLength = Math.max(
    minLength,
    Math.min(typeof s.maxLength === "number" ? s.maxLength : 24, 24),
  );
  if (s.format === "date-time") {
    return fc
      .date({
        min: new Date("2000-01-01T00:00:00Z"),
        max: new Date("2030-12-31T00:00:00Z"),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString());
  }
  if (s.format === "uri" || s.format === "url") return fc.constant("http://127.0.0.1:9/v1");
  if (typeof s.pattern === "string") {
    let pattern: RegExp;
    try {
      pattern = new RegExp(s.pattern);
    } catch {
      return fc.string({ minLength, maxLength });
    }
    return fc
      .stringMatching(pattern, { size: "xsmall" })
      .filter(
        (v) =>
          v.length >= minLength &&
          v.length <= (typeof s.maxLength === "number" ? s.maxLength : 10_000),
      );
  }
  return fc.string({ minLength, maxLength, unit: "grapheme-ascii" });
}

function objectFor(s: JsonSchema, doc: OpenApiDocument, depth: number): fc.Arbitrary<unknown> {
  const properties = (s.properties ?? {}) as Record<string, JsonSchema>;
  const required = (s.required ?? []) as string[];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, prop] of Object.entries(properties))
    model[name] = validValue(prop, doc, depth + 1);
  return fc.record(model, { requiredKeys: required.filter((r) => r in model) });
}
