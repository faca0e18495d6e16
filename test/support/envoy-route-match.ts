/**
 * Test support: Envoy's route selection for the subset of RouteMatch our configurations use
 * (path / prefix, header matchers with present_match or string_match exact / prefix / suffix /
 * contains, invert_match). The first route that matches wins, as in Envoy.
 */
type Json = Record<string, unknown>;

export interface RoutedRequest {
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringMatches(matcher: Json, value: string): boolean {
  if (typeof matcher.exact === "string") return value === matcher.exact;
  if (typeof matcher.prefix === "string") return value.startsWith(matcher.prefix);
  if (typeof matcher.suffix === "string") return value.endsWith(matcher.suffix);
  if (typeof matcher.contains === "string") return value.includes(matcher.contains);
  throw new Error(`unsupported string_match ${JSON.stringify(matcher)}`);
}

function headerMatches(matcher: Json, headers: Record<string, string>): boolean {
  const name = String(matcher.name).toLowerCase();
  const value = headers[name];
  let matched: boolean;
  if (matcher.present_match === true) matched = value !== undefined;
  else if (isObject(matcher.string_match))
    matched = value !== undefined && stringMatches(matcher.string_match, value);
  else throw new Error(`unsupported header matcher ${JSON.stringify(matcher)}`);
  return matcher.invert_match === true ? !matched : matched;
}

function routeMatches(match: Json, request: RoutedRequest): boolean {
  const path = request.path.split("?")[0] ?? "";
  if (typeof match.path === "string" && path !== match.path) return false;
  if (typeof match.prefix === "string" && !path.startsWith(match.prefix)) return false;
  if (match.path === undefined && match.prefix === undefined)
    throw new Error(`unsupported route match ${JSON.stringify(match)}`);
  const headers = Array.isArray(match.headers) ? match.headers.filter(isObject) : [];
  return headers.every((h) => headerMatches(h, request.headers));
}

/** The first route of `routes` that matches, or undefined (Envoy's 404). */
export function selectRoute(routes: readonly unknown[], request: RoutedRequest): Json | undefined {
  return routes.filter(isObject).find((r) => isObject(r.match) && routeMatches(r.match, request));
}
