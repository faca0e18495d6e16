import { timeOrderedHex } from "../../core/time-ordered-id.js";

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * A request id of the gateway's own: `req_` and a version 7 (time-ordered) UUID's 32 hex digits,
 * so the audit records' index by request id grows at its right edge.
 */
export function newRequestId(): string {
  return `req_${timeOrderedHex()}`;
}

/** The caller's X-Request-ID when it is a sane value, else a fresh one (newRequestId). */
export function requestIdFrom(header: string | string[] | undefined, trust: boolean): string {
  const value = Array.isArray(header) ? header[0] : header;
  if (trust && value !== undefined && SANE_REQUEST_ID.test(value)) return value;
  return newRequestId();
}
