/** Test double support: RFC 6902 JSON patch (add, replace, remove, test) for the fake API server. */
import { GatewayError } from "../../dataplane/core/errors.js";
import { isRecord } from "../../operator/kube/types.js";

interface Operation {
  op: string;
  path: string;
  value?: unknown;
}

export function applyJsonPatch(target: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations))
    throw new GatewayError("invalid_request", "a JSON patch is an array");
  const document: unknown = structuredClone(target);
  for (const raw of operations) {
    if (!isRecord(raw) || typeof raw.op !== "string" || typeof raw.path !== "string") {
      throw new GatewayError("invalid_request", "bad JSON patch operation");
    }
    apply(document, raw as unknown as Operation);
  }
  return document;
}

function apply(document: unknown, operation: Operation): void {
  const segments = operation.path
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  const last = segments.pop();
  if (last === undefined) throw new GatewayError("invalid_request", "empty JSON patch path");
  let parent: unknown = document;
  for (const segment of segments) {
    parent = Array.isArray(parent)
      ? parent[Number(segment)]
      : isRecord(parent)
        ? parent[segment]
        : undefined;
    if (parent === undefined)
      throw new GatewayError("validation_failed", `path ${operation.path} does not exist`);
  }
  if (Array.isArray(parent)) {
    const index = last === "-" ? parent.length : Number(last);
    if (operation.op === "add") parent.splice(index, 0, operation.value);
    else if (operation.op === "replace") parent[index] = operation.value;
    else if (operation.op === "remove") parent.splice(index, 1);
    else if (operation.op === "test") check(parent[index], operation);
    return;
  }
  if (!isRecord(parent))
    throw new GatewayError("validation_failed", `path ${operation.path} does not exist`);
  if (operation.op === "add" || operation.op === "replace") parent[last] = operation.value;
  else if (operation.op === "remove") delete parent[last];
  else if (operation.op === "test") check(parent[last], operation);
  else throw new GatewayError("invalid_request", `unsupported JSON patch op ${operation.op}`);
}

function check(actual: unknown, operation: Operation): void {
  if (JSON.stringify(actual) !== JSON.stringify(operation.value)) {
    throw new GatewayError("validation_failed", `test failed at ${operation.path}`);
  }
}
