/**
 * A small closed-loop load generator on undici: `connections` workers each send one request at a
 * time over a keep-alive pool, until `maxRequests` are done or `maxSeconds` have passed, whichever
 * comes first (so a run always stops by itself). Loopback targets only.
 */
import { Pool } from "undici";
import { deliveredAsSent, readChatStream, textPreserved } from "./sse-events.js";

export interface LoadRequest {
  path: string;
  body: string;
  headers: Record<string, string>;
  /** json: read the whole body; sse: read the stream and check its chunks. */
  kind: "json" | "sse";
  /** For sse: the content pieces the upstream sends, in order. */
  expected?: readonly string[];
}

export interface LoadSpec {
  connections: number;
  maxRequests: number;
  maxSeconds: number;
  request: LoadRequest;
}

export interface LoadResult {
  completed: number;
  errors: number;
  /** SSE responses whose chunks differed from what the upstream sent (count, content or order). */
  undelivered: number;
  /** SSE responses whose text as a whole differed from what the upstream sent (or had no [DONE]). */
  altered: number;
  seconds: number;
  requestsPerSecond: number;
  latenciesMs: number[];
  /** SSE only: time to the first content chunk, per request. */
  firstTokenMs: number[];
  /** The first error seen, to explain a failed run. */
  firstError: string | undefined;
}

const REQUEST_TIMEOUT_MS = 15_000;

/** A keep-alive client for one target (origin such as http://127.0.0.1:1234). */
export function openTarget(origin: string, connections: number): Pool {
  const url = new URL(origin);
  if (url.hostname !== "127.0.0.1" && url.hostname !== "localhost") {
    throw new Error(`load generator targets loopback only, not ${url.hostname}`);
  }
  return new Pool(url.origin, {
    connections,
    pipelining: 1,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  });
}

export async function runLoad(pool: Pool, spec: LoadSpec): Promise<LoadResult> {
  const result: LoadResult = {
    completed: 0,
    errors: 0,
    undelivered: 0,
    altered: 0,
    seconds: 0,
    requestsPerSecond: 0,
    latenciesMs: [],
    firstTokenMs: [],
    firstError: undefined,
  };
  const { request } = spec;
  const started = performance.now();
  const deadline = started + spec.maxSeconds * 1000;
  let issued = 0;

  const once = async (): Promise<void> => {
    const t0 = performance.now();
    const res = await pool.request({
      method: "POST",
      path: request.path,
      headers: request.headers,
      body: request.body,
    });
    if (res.statusCode !== 200) {
      const text = await res.body.text();
      throw new Error(`status ${res.statusCode}: ${text.slice(0, 200)}`);
    }
    if (request.kind === "json") {
      await res.body.text();
    } else {
      const reading = await readChatStream(res.body);
      if (reading.firstContentAt !== undefined)
        result.firstTokenMs.push(reading.firstContentAt - t0);
      if (!deliveredAsSent(reading, request.expected ?? [])) result.undelivered += 1;
      if (!textPreserved(reading, request.expected ?? [])) result.altered += 1;
    }
    result.latenciesMs.push(performance.now() - t0);
    result.completed += 1;
  };

  const worker = async (): Promise<void> => {
    while (issued < spec.maxRequests && performance.now() < deadline) {
      issued += 1;
      try {
        await once();
      } catch (error) {
        result.errors += 1;
        result.firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };

  await Promise.all(Array.from({ length: spec.connections }, () => worker()));
  result.seconds = (performance.now() - started) / 1000;
  result.requestsPerSecond = result.completed / result.seconds;
  return result;
}
