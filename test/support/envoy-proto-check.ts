/**
 * Test support: checks an Envoy configuration (YAML/JSON object) against Envoy's own protos from
 * @grpc/grpc-js-xds (the same source as the generated code): every field name exists in its
 * message, every `@type` names a real message, enums and durations are well-formed.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import protobuf from "protobufjs";

const DEPS = path.resolve("node_modules/@grpc/grpc-js-xds/deps");
/** Envoy's API and its imports; protobufjs ships descriptor.proto and the other Well-Known Types. */
const ROOTS = [
  ...["envoy-api", "xds", "googleapis", "protoc-gen-validate"].map((d) => path.join(DEPS, d)),
  path.resolve("node_modules/protobufjs"),
];
const FILES = [
  "envoy/extensions/filters/http/dynamic_forward_proxy/v3/dynamic_forward_proxy.proto",
  "envoy/extensions/clusters/dynamic_forward_proxy/v3/cluster.proto",
  "envoy/extensions/http/early_header_mutation/header_mutation/v3/header_mutation.proto",
  "envoy/extensions/transport_sockets/tls/v3/tls.proto",
  "envoy/config/bootstrap/v3/bootstrap.proto",
  "envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto",
  "envoy/extensions/filters/http/ext_authz/v3/ext_authz.proto",
  "envoy/extensions/filters/http/ext_proc/v3/ext_proc.proto",
  "envoy/extensions/filters/http/router/v3/router.proto",
  "envoy/extensions/upstreams/http/v3/http_protocol_options.proto",
];

export function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    for (const dir of ROOTS) {
      const candidate = path.join(dir, target);
      try {
        readFileSync(candidate);
        return candidate;
      } catch {
        // try the next root
      }
    }
    return target;
  };
  root.loadSync(FILES, { keepCase: true });
  root.resolveAll();
  return root;
}

const WRAPPERS = new Set([
  "google.protobuf.BoolValue",
  "google.protobuf.UInt32Value",
  "google.protobuf.UInt64Value",
  "google.protobuf.Int64Value",
  "google.protobuf.Int32Value",
  "google.protobuf.DoubleValue",
  "google.protobuf.StringValue",
]);

/** Problems found walking `value` as a message of `type`, with their paths. */
export function check(
  root: protobuf.Root,
  type: protobuf.Type,
  value: unknown,
  at: string,
): string[] {
  const name = type.fullName.replace(/^\./, "");
  if (name === "google.protobuf.Duration") {
    return typeof value === "string" && /^\d+(\.\d+)?s$/.test(value) ? [] : [`${at}: bad duration`];
  }
  if (WRAPPERS.has(name)) return typeof value === "object" ? [`${at}: expected a scalar`] : [];
  if (name === "google.protobuf.Struct") return [];
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [`${at}: expected an object for ${name}`];
  }
  const object = value as Record<string, unknown>;
  if (name === "google.protobuf.Any") {
    const url = object["@type"];
    if (typeof url !== "string") return [`${at}: Any without @type`];
    const inner = root.lookupType(url.replace("type.googleapis.com/", ""));
    const { "@type": _type, ...rest } = object;
    return check(root, inner, rest, `${at}<${inner.name}>`);
  }
  const problems: string[] = [];
  for (const [key, item] of Object.entries(object)) {
    const field = type.fields[key];
    if (field === undefined) {
      problems.push(`${at}.${key}: no such field in ${name}`);
      continue;
    }
    const items = field.repeated ? (Array.isArray(item) ? item : [undefined]) : [item];
    if (field.repeated && !Array.isArray(item)) problems.push(`${at}.${key}: expected a list`);
    if (field.map) {
      for (const [k, v] of Object.entries(item as Record<string, unknown>)) {
        if (field.resolvedType instanceof protobuf.Type)
          problems.push(...check(root, field.resolvedType, v, `${at}.${key}[${k}]`));
      }
      continue;
    }
    for (const [i, element] of items.entries()) {
      const where = field.repeated ? `${at}.${key}[${i}]` : `${at}.${key}`;
      const resolved = field.resolvedType;
      if (resolved instanceof protobuf.Type)
        problems.push(...check(root, resolved, element, where));
      else if (resolved instanceof protobuf.Enum) {
        const ok =
          (typeof element === "string" && element in resolved.values) ||
          (typeof element === "number" && Object.values(resolved.values).includes(element));
        if (!ok) problems.push(`${where}: ${String(element)} is not a ${resolved.name}`);
      }
    }
  }
  return problems;
}

/** Problems found checking a whole Envoy bootstrap configuration; [] when it is valid. */
export function bootstrapProblems(config: unknown): string[] {
  const root = loadRoot();
  return check(root, root.lookupType("envoy.config.bootstrap.v3.Bootstrap"), config, "$");
}
