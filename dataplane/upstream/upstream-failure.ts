import { Readable } from "node:stream";
import { errors as undiciErrors } from "undici";
import { GatewayError } from "../core/errors.js";

/**
 * How upstream failures reach the caller, in one place for REST and Envoy's ext_proc:
 * - a backend's error answer (4xx, 5xx) is relayed with its status and its error object (message,
 *   type, param, code; null kept), Retry-After kept: `relayedUpstreamError`;
 * - a failure to get or read an answer (refused, timed out, reset, a body cut mid-way, a body that
 *   is not what was asked for) is 502 `upstream_unavailable`: `upstreamFailure`.
 */

export interface RelayedError {
  status: number;
  body: { error: { message: string; type: string; param: unknown; code: unknown } };
  headers: Record<string, string>;
}

/** Headers of a backend's error answer that the caller needs (the SDKs read them to back off). */
const KEPT_HEADERS = ["retry-after", "retry-after-ms"];

function header(headers: Record<string, string | string[] | undefined>, name: string) {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The backend's error answer as the caller gets it: its status, its error object, Retry-After. */
export function relayedUpstreamError(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  text: string,
): RelayedError {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = header(headers, name);
    if (value !== undefined && /^[\w .:,+-]{1,100}$/.test(value)) kept[name] = value;
  }
  const fallbackType = status >= 500 ? "backend_error" : "invalid_request_error";
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const error = (parsed as { error?: unknown } | undefined)?.error;
  if (error !== null && typeof error === "object" && !Array.isArray(error)) {
    const e = error as Record<string, unknown>;
    if (typeof e.message === "string") {
      return {
        status,
        headers: kept,
        body: {
          error: {
            message: e.message,
            type: typeof e.type === "string" ? e.type : fallbackType,
            param: e.param ?? null,
            code: e.code ?? null,
          },
        },
      };
    }
  }
  const message =
    status >= 500
      ? `backend error: the backend answered ${status}`
      : `backend rejected the request (${status})`;
  const code = status >= 500 ? "upstream_unavailable" : "upstream_rejected";
  return {
    status,
    headers: kept,
    body: { error: { message, type: fallbackType, param: null, code } },
  };
}

/** Any failure getting or reading a backend's answer: 502 upstream_unavailable, reason kept. */
export function upstreamFailure(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  return new GatewayError("upstream_unavailable", `backend error: ${describeUpstreamError(err)}`, {
    cause: err,
  });
}

/** Why a request to a backend failed, in words for the caller (never the raw error). */
export function describeUpstreamError(err: unknown): string {
  if (err instanceof undiciErrors.BodyTimeoutError) return "the backend stopped sending";
  if (err instanceof undiciErrors.HeadersTimeoutError) return "upstream did not answer in time";
  if (err instanceof undiciErrors.ConnectTimeoutError) return "upstream connection timed out";
  if (err instanceof undiciErrors.SocketError) return "the backend closed the connection";
  if (err instanceof undiciErrors.ResponseContentLengthMismatchError)
    return "the backend's answer was cut short";
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "ECONNREFUSED") return "upstream refused the connection";
  if (code === "ECONNRESET" || code === "UND_ERR_SOCKET")
    return "the backend closed the connection";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "upstream host not found";
  return "the backend's answer was interrupted";
}

/** Reads a whole upstream body, at most `max` bytes; a cut or oversized body is 502. */
export async function readUpstreamBody(body: AsyncIterable<Uint8Array>, max: number) {
  if (body instanceof Readable) return readStream(body, max);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > max)
        throw new GatewayError("upstream_unavailable", "backend error: response too large");
      chunks.push(Buffer.from(chunk));
    }
  } catch (err) {
    throw upstreamFailure(err);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * readUpstreamBody for a Node stream (undici's bodies): read with events, not an async iterator
 * (a few microseconds less per call), chunks kept as they come. Fails like the iterator: an error
 * or a close before the end is an upstream failure; over `max`, the stream is destroyed.
 */
function readStream(body: Readable, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      reject(upstreamFailure(err));
    };
    body.on("data", (chunk: Uint8Array) => {
      size += chunk.length;
      if (size > max) {
        fail(new GatewayError("upstream_unavailable", "backend error: response too large"));
        body.destroy();
        return;
      }
      chunks.push(chunk);
    });
    body.once("end", () => {
      if (settled) return;
      settled = true;
      const only = chunks.length === 1 ? chunks[0] : undefined;
      resolve(
        only
          ? Buffer.from(only.buffer, only.byteOffset, only.byteLength).toString("utf8")
          : Buffer.concat(chunks).toString("utf8"),
      );
    });
    body.once("error", fail);
    // "close" follows "end" on every answer: the Error (a stack trace to capture) only when it
    // came first.
    body.once("close", () => {
      if (!settled) fail(new Error("the response ended before it was complete"));
    });
  });
}
