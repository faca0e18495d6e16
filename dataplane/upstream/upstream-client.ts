import type { Readable } from "node:stream";
import { Agent, errors as undiciErrors, type Dispatcher, type FormData } from "undici";
import type { Target } from "../routing/routing-types.js";

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

/**
 * Watches each request to a backend (tracing): may add headers (W3C traceparent) before it is
 * sent; the returned function is called with the response status, or without one on failure.
 */
export type UpstreamObserver = (
  target: Target,
  req: UpstreamRequest,
  headers: Record<string, string>,
) => ((status: number | undefined) => void) | undefined;

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

  constructor(
    timeouts: UpstreamTimeouts,
    private readonly observer?: UpstreamObserver,
  ) {
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
    const observed = this.observer?.(target, req, headers);
    try {
      const res = await this.agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: req.method,
        headers,
        body: req.body as Dispatcher.DispatchOptions["body"],
        signal: req.signal,
      });
      observed?.(res.statusCode);
      return { status: res.statusCode, headers: res.headers, body: res.body };
    } catch (err) {
      observed?.(undefined);
      if (req.signal?.aborted) throw err;
      throw new UpstreamConnectError(describeFailure(err), { cause: err });
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

function joinPath(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}

function describeFailure(err: unknown): string {
  if (err instanceof undiciErrors.HeadersTimeoutError) return "upstream did not answer in time";
  if (err instanceof undiciErrors.ConnectTimeoutError) return "upstream connection timed out";
  if (err instanceof undiciErrors.SocketError) return "upstream closed the connection";
  const code = (err as { code?: string }).code;
  if (code === "ECONNREFUSED") return "upstream refused the connection";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "upstream host not found";
  return "upstream request failed";
}
