import { randomUUID } from "node:crypto";

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-ID when it is a sane value, else a fresh one. */
export function requestIdFrom(header: string | string[] | undefined, trust: boolean): string {
  const value = Array.isArray(header) ? header[0] : header;
  if (trust && value !== undefined && SANE_REQUEST_ID.test(value)) return value;
  return `req_${randomUUID().replace(/-/g, "")}`;
}
