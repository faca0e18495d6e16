/**
 * Header handling of the Envoy test double: how Envoy encodes an HTTP header map for ext_authz and
 * ext_proc, and how it applies the header mutations a processor returns. Envoy cannot run here, so
 * these rules are copied from Envoy's behaviour (ext_proc mutation_utils / mutation_rules and the
 * ext_authz gRPC client), for tests of our adapters only.
 */
import { HeaderMap, type HeaderValueOption } from "../../proto/gen/envoy/config/core/v3/base.js";
import type { HeaderMutation } from "../../proto/gen/envoy/service/ext_proc/v3/external_processor.js";

/** An HTTP header list as Envoy holds it: lower-case names, in order, repeats allowed. */
export type HeaderList = [name: string, value: string][];

/** Header input accepted by the fake: a list, or an object (a value array means repeated header). */
export type HeaderInput = HeaderList | Record<string, string | string[]>;

/**
 * How Envoy puts header values on the wire to an ext_proc server. Current Envoy sends `raw_value`
 * (bytes) and reads only `raw_value` from set_headers (runtime guard send_header_raw_value, on by
 * default); older Envoy used the string `value` for both.
 */
export type HeaderEncoding = "raw_value" | "value";

export function toHeaderList(input: HeaderInput | undefined): HeaderList {
  if (input === undefined) return [];
  if (Array.isArray(input)) return input.map(([name, value]) => [name.toLowerCase(), value]);
  const list: HeaderList = [];
  for (const [name, value] of Object.entries(input)) {
    for (const one of Array.isArray(value) ? value : [value]) list.push([name.toLowerCase(), one]);
  }
  return list;
}

/** All values of a header, in order. */
export function headerValues(headers: HeaderList, name: string): string[] {
  const lower = name.toLowerCase();
  return headers.filter(([key]) => key === lower).map(([, value]) => value);
}

/** A header's values joined the way Envoy merges them (", "), or undefined when absent. */
export function headerValue(headers: HeaderList, name: string): string | undefined {
  const values = headerValues(headers, name);
  return values.length === 0 ? undefined : values.join(", ");
}

export function withoutHeader(headers: HeaderList, name: string): HeaderList {
  const lower = name.toLowerCase();
  return headers.filter(([key]) => key !== lower);
}

/** Replaces every value of `name` with one value, keeping the position of the first one. */
export function setHeader(headers: HeaderList, name: string, value: string): HeaderList {
  const lower = name.toLowerCase();
  const index = headers.findIndex(([key]) => key === lower);
  if (index === -1) return [...headers, [lower, value]];
  const kept = headers.filter(([key], i) => key !== lower || i === index);
  return kept.map(([key, old]) => (key === lower ? [key, value] : [key, old]));
}

export function toEnvoyHeaderMap(headers: HeaderList, encoding: HeaderEncoding): HeaderMap {
  return HeaderMap.fromPartial({
    headers: headers.map(([key, value]) =>
      encoding === "raw_value" ? { key, rawValue: Buffer.from(value, "utf8") } : { key, value },
    ),
  });
}

/** What a processor's header mutation did: the new headers, or why Envoy would fail the request. */
export type HeaderMutationResult =
  { ok: true; headers: HeaderList; rejected: string[] } | { ok: false; reason: string };

const ROUTING_HEADERS = new Set(["host", ":authority", ":method", ":scheme"]);
const HEADER_NAME = /^:?[!#$%&'*+\-.^_`|~0-9a-z]+$/;
const HEADER_VALUE = /^[^\0\r\n]*$/;

/** Envoy's default HeaderMutationRules: routing headers and x-envoy-* may not be changed. */
function mutationAllowed(name: string, replacingMessage: boolean): boolean {
  if (replacingMessage && name === ":method") return true;
  return !ROUTING_HEADERS.has(name) && !name.startsWith("x-envoy-");
}

/**
 * Applies an ext_proc HeaderMutation like Envoy does: removals first (pseudo-headers and host can
 * never be removed), then set_headers in order. Only `append` (default false: overwrite) decides
 * append vs overwrite; `append_action` is not read by ext_proc. Setting both value and raw_value,
 * or an invalid name/value, fails the request. Disallowed headers are skipped and reported.
 */
export function applyExtProcHeaderMutation(
  headers: HeaderList,
  mutation: HeaderMutation,
  encoding: HeaderEncoding,
  replacingMessage = false,
): HeaderMutationResult {
  let result = headers;
  const rejected: string[] = [];
  for (const raw of mutation.removeHeaders) {
    const name = raw.toLowerCase();
    if (!HEADER_NAME.test(name))
      return { ok: false, reason: `invalid header name in remove_headers: ${raw}` };
    if (name.startsWith(":") || name === "host" || !mutationAllowed(name, false)) {
      rejected.push(name);
      continue;
    }
    result = withoutHeader(result, name);
  }
  for (const option of mutation.setHeaders) {
    const header = option.header;
    if (header === undefined) continue;
    if (header.value !== "" && header.rawValue.length > 0) {
      return { ok: false, reason: "only one of value or raw_value may be set" };
    }
    const name = header.key.toLowerCase();
    const value = encoding === "raw_value" ? header.rawValue.toString("utf8") : header.value;
    if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(value)) {
      return { ok: false, reason: `invalid character in set_headers: ${header.key}` };
    }
    if (!mutationAllowed(name, replacingMessage)) {
      rejected.push(name);
      continue;
    }
    result = option.append === true ? [...result, [name, value]] : setHeader(result, name, value);
  }
  return { ok: true, headers: result, rejected };
}

/**
 * Applies ext_authz header options (OkHttpResponse.headers, DeniedHttpResponse.headers) like
 * Envoy's gRPC ext_authz client: the string `value` is used, `append: true` appends, anything else
 * overwrites.
 */
export function applyExtAuthzHeaderOptions(
  headers: HeaderList,
  options: HeaderValueOption[],
): HeaderList {
  let result = headers;
  for (const option of options) {
    if (option.header === undefined) continue;
    const name = option.header.key.toLowerCase();
    const value = option.header.value;
    result = option.append === true ? [...result, [name, value]] : setHeader(result, name, value);
  }
  return result;
}

/** ext_authz headers_to_remove: pseudo-headers and host are ignored, as Envoy does. */
export function removeExtAuthzHeaders(headers: HeaderList, names: string[]): HeaderList {
  let result = headers;
  for (const raw of names) {
    const name = raw.toLowerCase();
    if (name.startsWith(":") || name === "host") continue;
    result = withoutHeader(result, name);
  }
  return result;
}
