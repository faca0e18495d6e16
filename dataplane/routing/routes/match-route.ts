import type { RouteConfig } from "./route-config.js";

/**
 * The customer's route that applies to a call: the oldest enabled route whose `match.model` is
 * the requested name and whose every `match.headers` entry equals a request header. Routes with
 * header conditions never match a call that carries no headers.
 */
export function matchRoute(
  routes: readonly RouteConfig[],
  requestedModel: string,
  requestHeaders: Readonly<Record<string, string>> | undefined,
): RouteConfig | undefined {
  if (routes.length === 0) return undefined;
  const headers = lowerKeys(requestHeaders ?? {});
  return routes.find(
    (r) =>
      r.enabled &&
      r.match.model === requestedModel &&
      Object.entries(r.match.headers).every(([k, v]) => headers.get(k.toLowerCase()) === v),
  );
}

function lowerKeys(headers: Readonly<Record<string, string>>): Map<string, string> {
  return new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
