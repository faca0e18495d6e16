import type { IncomingHttpHeaders } from "node:http";

const CREDENTIAL_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "x-api-key",
  "api-key",
]);

/** The request headers smart routes may match on: single string values, no credentials. */
export function headersForRouting(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (typeof value === "string" && !CREDENTIAL_HEADERS.has(lower)) out[lower] = value;
  }
  return out;
}
