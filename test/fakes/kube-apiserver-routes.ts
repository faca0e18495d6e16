import type { ResourceType } from "../../operator/kube/types.js";

/** What a request path names: a resource type, maybe a namespace, a name and the status subresource. */
export interface Route {
  resource: ResourceType;
  namespace: string | undefined;
  name: string | undefined;
  subresource: "status" | undefined;
}

/** The route of a request path (`/api/v1/...` or `/apis/<group>/<version>/...`), if it names a served resource. */
export function routeOf(resources: readonly ResourceType[], pathname: string): Route | undefined {
  const parts = pathname.split("/").filter(Boolean);
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === "api" && parts.length >= 2) {
    group = "";
    version = parts[1] ?? "";
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 3) {
    group = parts[1] ?? "";
    version = parts[2] ?? "";
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource] = rest;
  const resource = resources.find(
    (r) => r.group === group && r.version === version && r.plural === plural,
  );
  if (!resource || (subresource !== undefined && subresource !== "status")) return undefined;
  return {
    resource,
    namespace,
    name,
    subresource: subresource === "status" ? "status" : undefined,
  };
}
