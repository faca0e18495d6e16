// Loads our CRDs and validates custom resources against them the way kube-apiserver does on
// create and update: apiVersion/kind, metadata.name, defaulting, the structural schema
// (through ajv, see k8s-schema.ts), list types, then the CEL rules (k8s-schema-cel.ts),
// transition rules (those that use oldSelf) only on update. Test support: no apiserver here.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { ValidateFunction } from "ajv";
import { parse } from "yaml";
import { evaluateCel, type CelValue } from "./k8s-schema-cel.js";
import { fieldPath, newAjv, schemaErrors, toJsonSchema, type OpenApiSchema } from "./k8s-schema.js";

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  subresources?: { status?: object };
  additionalPrinterColumns?: { name: string; type: string; jsonPath: string }[];
  schema: { openAPIV3Schema: OpenApiSchema };
}

export interface CrdDocument {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: {
      kind: string;
      plural: string;
      singular: string;
      shortNames: string[];
      categories: string[];
    };
    versions: CrdVersion[];
  };
}

export interface LoadedCrd {
  file: string;
  doc: CrdDocument;
  validate: ValidateFunction;
}

export type Resource = { [key: string]: unknown };

export function loadCrds(dir: string): LoadedCrd[] {
  const ajv = newAjv();
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((file) => {
      const doc = parse(readFileSync(join(dir, file), "utf8")) as CrdDocument;
      const schema = doc.spec.versions[0]?.schema.openAPIV3Schema;
      if (!schema) throw new Error(`${file}: no schema`);
      return { file, doc, validate: ajv.compile(toJsonSchema(schema)) };
    });
}

export function crdForKind(crds: LoadedCrd[], apiVersion: unknown, kind: unknown): LoadedCrd {
  const crd = crds.find(
    (c) =>
      `${c.doc.spec.group}/${c.doc.spec.versions[0]?.name}` === apiVersion &&
      c.doc.spec.names.kind === kind,
  );
  if (!crd) throw new Error(`no CRD serves ${String(apiVersion)} ${String(kind)}`);
  return crd;
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function metadataErrors(obj: Resource): string[] {
  const meta = obj.metadata as { name?: unknown } | undefined;
  const name = meta?.name;
  if (typeof name !== "string" || name === "")
    return ["metadata.name: Required value: name is required"];
  if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    return [
      `metadata.name: Invalid value: ${JSON.stringify(name)}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'`,
    ];
  }
  return [];
}

function isRecord(v: unknown): v is { [key: string]: unknown } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** JSON value -> CEL value under the schema (date-time strings become timestamps). */
function toCel(schema: OpenApiSchema, value: unknown): CelValue {
  if (typeof value === "string" && schema.format === "date-time") return new Date(value);
  if (Array.isArray(value))
    return value.map((v) => toCel((schema.items ?? {}) as OpenApiSchema, v));
  if (isRecord(value)) {
    const props = (schema.properties ?? {}) as { [key: string]: OpenApiSchema };
    const extra = (
      isRecord(schema.additionalProperties) ? schema.additionalProperties : {}
    ) as OpenApiSchema;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, toCel(props[k] ?? extra, v)]),
    );
  }
  return value as CelValue;
}

function celTypeName(value: unknown): string {
  if (Array.isArray(value)) return "array";
  return isRecord(value) ? "object" : typeof value;
}

/** Walks schema and value together, checking list types and CEL rules; collects messages. */
function walk(
  schema: OpenApiSchema,
  value: unknown,
  old: unknown,
  pointer: string,
  out: string[],
): void {
  if (value === undefined) return;
  const path = fieldPath(pointer);
  const listType = schema["x-kubernetes-list-type"];
  if (Array.isArray(value) && (listType === "set" || listType === "map")) {
    const keys = (schema["x-kubernetes-list-map-keys"] ?? []) as string[];
    const ids = value.map((v) =>
      JSON.stringify(listType === "set" ? v : keys.map((k) => (v as Resource)[k])),
    );
    const dup = ids.findIndex((id, i) => ids.indexOf(id) !== i);
    if (dup >= 0) out.push(`${path}[${dup}]: Duplicate value: ${ids[dup]}`);
  }
  const rules = (schema["x-kubernetes-validations"] ?? []) as { rule: string; message: string }[];
  for (const { rule, message } of rules) {
    const transition = /\boldSelf\b/.test(rule);
    if (transition && old === undefined) continue; // Kubernetes: transition rules run on update only
    const env = {
      self: toCel(schema, value),
      oldSelf: transition ? toCel(schema, old) : undefined,
    };
    try {
      if (!evaluateCel(rule, env))
        out.push(`${path}: Invalid value: "${celTypeName(value)}": ${message}`);
    } catch (err) {
      out.push(
        `${path}: Invalid value: "${celTypeName(value)}": ${(err as Error).message} evaluating rule: ${rule}`,
      );
    }
  }
  if (Array.isArray(value) && isRecord(schema.items)) {
    value.forEach((v, i) =>
      walk(schema.items as OpenApiSchema, v, undefined, `${pointer}/${i}`, out),
    );
  } else if (isRecord(value)) {
    const props = (schema.properties ?? {}) as { [key: string]: OpenApiSchema };
    for (const [k, v] of Object.entries(value)) {
      const sub =
        props[k] ??
        (isRecord(schema.additionalProperties) ? schema.additionalProperties : undefined);
      const oldValue = isRecord(old) ? old[k] : undefined;
      if (sub)
        walk(
          sub as OpenApiSchema,
          v,
          oldValue,
          `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`,
          out,
        );
    }
  }
}

/**
 * Validates a create (old absent) or an update (old given). Returns kube-apiserver-style
 * messages; [] when the API server would accept the object. Defaults are applied to copies.
 */
export function validateCustomResource(crd: LoadedCrd, obj: Resource, old?: Resource): string[] {
  const errors: string[] = [];
  const version = crd.doc.spec.versions[0];
  const expected = `${crd.doc.spec.group}/${version?.name}`;
  if (obj.apiVersion !== expected)
    errors.push(`apiVersion: Invalid value: ${JSON.stringify(obj.apiVersion)}`);
  if (obj.kind !== crd.doc.spec.names.kind)
    errors.push(`kind: Invalid value: ${JSON.stringify(obj.kind)}`);
  errors.push(...metadataErrors(obj));
  const data = structuredClone(obj);
  errors.push(...schemaErrors(crd.validate, data));
  if (errors.length > 0) return errors;
  let oldData: Resource | undefined;
  if (old) {
    oldData = structuredClone(old);
    const oldErrors = schemaErrors(crd.validate, oldData);
    if (oldErrors.length > 0)
      throw new Error(`the stored object is itself invalid: ${oldErrors.join("; ")}`);
  }
  const schema = version?.schema.openAPIV3Schema ?? {};
  walk(schema, data, oldData, "", errors);
  return errors;
}

/** The object as the API server would store it (defaults applied), for assertions. */
export function withDefaults(crd: LoadedCrd, obj: Resource): Resource {
  const data = structuredClone(obj);
  schemaErrors(crd.validate, data);
  return data;
}
