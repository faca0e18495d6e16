import type { Readable } from "node:stream";
import { Agent, type Dispatcher, type FormData } from "undici";
import type { Target } from "../routing/routing-types.js";
import { describeUpstreamError } from "./upstream-failure.js";

export interface UpstreamTimeouts {
  connectMs: number;
  /** Until the response headers (time to first byte). */
  headersMs: number;
  /** Longest pause between two body chunks. */
  bodyMs: number;
}

export interface UpstreamRequest {
  /** Path below the target's base URL, e.g. "/chat/completions". */
  path: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string | Buffer | Readable | FormData;
  signal?: AbortSignal;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData["body"];
}

/** A failure to get a response at all (connection refused, reset, timeout). */
export class UpstreamConnectError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UpstreamConnectError";
  }
}

/** HTTP client for OpenAI-compatible backends: keep-alive pools per origin, bounded timeouts. */
export class UpstreamClient {
  private readonly agent: Agent;

  constructor(timeouts: UpstreamTimeouts) {
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 300_000,
      connections: 256,
      pipelining: 1,
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
    });
  }

  async send(target: Target, req: UpstreamRequest): Promise<UpstreamResponse> {
    const url = new URL(joinPath(target.baseUrl, req.path));
    const headers: Record<string, string> = { ...req.headers };
    if (target.credential) headers.authorization = `Bearer ${target.credential}`;
    try {
      const res = await this.agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method,
        headers,
        body: req.body as Dispatcher.DispatchOptions["body"],
        signal: req.signal,
      });
      return { status: res.statusCode, headers: res.headers, body: res.body };
    } catch (err) {
      if (req.signal?.aborted) throw err;
      throw new UpstreamConnectError(describeUpstreamError(err), { cause: err });
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function joinPath(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}
