// Turns a CRD's OpenAPI v3 structural schema into JSON Schema for ajv, and reports ajv's
// findings in the words kube-apiserver uses, so example CRs can state the error they expect.
// Kubernetes-specific parts are translated, not dropped:
//   nullable: true                        -> the type also admits null
//   x-kubernetes-preserve-unknown-fields  -> unknown fields allowed; elsewhere an object with
//                                            declared properties rejects unknown fields, as
//                                            kubectl's strict field validation does (the API
//                                            server without it would prune them silently)
//   x-kubernetes-int-or-string            -> kept as the anyOf integer/string beside it
//   x-kubernetes-list-type: set | map     -> unique items / unique map keys (checked in
//                                            k8s-schema-crd.ts)
//   x-kubernetes-validations (CEL)        -> evaluated by k8s-schema-cel.ts
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";

export type OpenApiSchema = { [key: string]: unknown };

const KEPT = new Set([
  "type",
  "properties",
  "required",
  "items",
  "additionalProperties",
  "enum",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "default",
  "format",
  "anyOf",
  "allOf",
  "oneOf",
  "not",
  "description",
]);

function isSchema(v: unknown): v is OpenApiSchema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Converts one OpenAPI v3 structural schema node (recursively) to JSON Schema. */
export function toJsonSchema(node: OpenApiSchema): OpenApiSchema {
  const out: OpenApiSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (!KEPT.has(key)) continue;
    if (key === "properties" && isSchema(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, toJsonSchema(v as OpenApiSchema)]),
      );
    } else if (
      (key === "items" || key === "additionalProperties" || key === "not") &&
      isSchema(value)
    ) {
      out[key] = toJsonSchema(value);
    } else if ((key === "anyOf" || key === "allOf" || key === "oneOf") && Array.isArray(value)) {
      out[key] = value.map((v: OpenApiSchema) => toJsonSchema(v));
    } else {
      out[key] = value;
    }
  }
  if (node.nullable === true && typeof node.type === "string") out.type = [node.type, "null"];
  const preserve = node["x-kubernetes-preserve-unknown-fields"] === true;
  // An object with declared properties rejects others unless it preserves unknown fields.
  // (The root's metadata declares none: the API server validates ObjectMeta itself.)
  if (node.properties !== undefined && !preserve && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

const RFC3339 =
  /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/;

export function isDateTime(s: string): boolean {
  return RFC3339.test(s) && !Number.isNaN(Date.parse(s));
}

export function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, strictTypes: false });
  ajv.addFormat("date-time", isDateTime);
  ajv.addFormat("int32", {
    type: "number",
    validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
  });
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isSafeInteger(n) });
  return ajv;
}

/** JSON pointer -> Kubernetes field path: /spec/targets/0/model -> spec.targets[0].model */
export function fieldPath(pointer: string, extra?: string): string {
  const parts = pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (extra !== undefined) parts.push(extra);
  let path = "";
  for (const part of parts) {
    if (/^\d+$/.test(part)) path += `[${part}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(part)) path += path === "" ? part : `.${part}`;
    else path += `[${part}]`;
  }
  return path;
}

function shown(v: unknown): string {
  return typeof v === "string" ? JSON.stringify(v) : String(v);
}

/** One ajv error in kube-apiserver's wording. */
export function kubeMessage(e: ErrorObject, data: unknown): string {
  const at = (ptr: string): unknown =>
    ptr
      .split("/")
      .slice(1)
      .reduce<unknown>(
        (v, k) => (isSchema(v) || Array.isArray(v) ? (v as never)[k] : undefined),
        data,
      );
  const path = fieldPath(e.instancePath);
  const value = at(e.instancePath);
  const p = e.params as { [key: string]: unknown };
  switch (e.keyword) {
    case "required":
      return `${fieldPath(e.instancePath, String(p.missingProperty))}: Required value`;
    case "additionalProperties":
      return `unknown field "${fieldPath(e.instancePath, String(p.additionalProperty))}"`;
    case "enum": {
      const allowed = (p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ");
      return `${path}: Unsupported value: ${shown(value)}: supported values: ${allowed}`;
    }
    case "minimum":
      return `${path}: Invalid value: ${shown(value)}: ${path} in body should be greater than or equal to ${String(p.limit)}`;
    case "maximum":
      return `${path}: Invalid value: ${shown(value)}: ${path} in body should be less than or equal to ${String(p.limit)}`;
    case "minLength":
      return `${path}: Invalid value: ${shown(value)}: ${path} in body should be at least ${String(p.limit)} chars long`;
    case "maxLength":
      return `${path}: Too long: may not be more than ${String(p.limit)} bytes`;
    case "minItems":
      return `${path}: Invalid value: ${String((value as unknown[]).length)}: ${path} in body should have at least ${String(p.limit)} items`;
    case "maxItems":
      return `${path}: Too many: ${String((value as unknown[]).length)}: must have at most ${String(p.limit)} items`;
    case "maxProperties":
      return `${path}: Too many: must have at most ${String(p.limit)} items`;
    case "pattern":
      return `${path}: Invalid value: ${shown(value)}: ${path} in body should match '${String(p.pattern)}'`;
    case "type":
      return `${path}: Invalid value: ${JSON.stringify(typeof value)}: ${path} in body must be of type ${String(p.type)}: ${JSON.stringify(typeof value)}`;
    case "format":
      return `${path}: Invalid value: ${shown(value)}: ${path} in body must be of type ${String(p.format)}: ${shown(value)}`;
    default:
      return `${path}: Invalid value: ${e.message ?? e.keyword}`;
  }
}

/** Validates (and defaults, in place) data; returns kube-style messages, [] when valid. */
export function schemaErrors(validate: ValidateFunction, data: unknown): string[] {
  if (validate(data)) return [];
  return (validate.errors ?? []).map((e) => kubeMessage(e, data));
}
