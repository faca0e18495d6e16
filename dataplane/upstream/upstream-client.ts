import type { Readable } from "node:stream";
import {
  Agent,
  buildConnector,
  errors as undiciErrors,
  type Dispatcher,
  type FormData,
} from "undici";
import { isIP } from "node:net";
import type { Target } from "../routing/routing-types.js";
import {
  DestinationRefusedError,
  policedCreateConnection,
  type DestinationPolicy,
} from "./destination-policy.js";
import { HOP_HEADER, HOPS_HEADER } from "./hop-marker.js";
import { dispatchRequest, type DispatchedResponse } from "./upstream-response.js";

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
  /** Gateways the call that caused this one has passed (0 from a client). */
  hops?: number;
}

export interface UpstreamClientOptions extends UpstreamTimeouts {
  /** Connections per backend origin; larger than any tier's concurrency cap. */
  connections: number;
  /** Applied at connect time to customer-registered backends (not to operator deployments). */
  policy: DestinationPolicy;
  /** The value of the hop marker every outbound call carries. */
  hopToken: string;
  /** Where the real reason of a failure goes (logs); callers only get a generic message. */
  onFailure?: (targetId: string, reason: string) => void;
  /** Watches each request (tracing); unset: nothing is added to a request. */
  observer?: UpstreamObserver;
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

export type UpstreamResponse = DispatchedResponse;

/** What a caller learns of any failure to reach a backend: never which one, nor why. */
export const UNREACHABLE = "the backend could not be reached";

/** A failure to get a response at all (refused by policy or by the host, reset, timeout). */
export class UpstreamConnectError extends Error {
  constructor(options?: { cause?: unknown }) {
    super(UNREACHABLE, options);
    this.name = "UpstreamConnectError";
  }
}

/**
 * HTTP client for OpenAI-compatible backends: keep-alive pools per origin, bounded timeouts.
 * Operator-provisioned deployments are trusted destinations; customer-registered backends go
 * through a second pool whose connector applies the destination policy to the resolved address.
 */
export class UpstreamClient {
  private readonly trusted: Agent;
  private readonly policed: Agent;
  readonly hopToken: string;
  private readonly policy: DestinationPolicy;
  private readonly onFailure: (targetId: string, reason: string) => void;
  private readonly observer: UpstreamObserver | undefined;

  constructor(options: UpstreamClientOptions) {
    const common = {
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 300_000,
      connections: options.connections,
      pipelining: 1,
      headersTimeout: options.headersMs,
      bodyTimeout: options.bodyMs,
    };
    this.trusted = new Agent({ ...common, connect: { timeout: options.connectMs } });
    this.policed = new Agent({ ...common, connect: policedConnector(options) });
    this.hopToken = options.hopToken;
    this.policy = options.policy;
    this.onFailure = options.onFailure ?? (() => undefined);
    this.observer = options.observer;
  }

  /**
   * For the realtime relay's WebSocket client: the hop headers, and for a customer-registered
   * backend a connection factory that applies the destination policy.
   */
  outboundFor(
    target: Target,
    hops: number,
    secure: boolean,
  ): {
    headers: Record<string, string>;
    createConnection?: ReturnType<typeof policedCreateConnection>;
  } {
    const headers = { [HOP_HEADER]: this.hopToken, [HOPS_HEADER]: String(hops + 1) };
    if (target.kind === "deployment") return { headers };
    return { headers, createConnection: policedCreateConnection(this.policy, secure) };
  }

  /** Records the real reason of a failed attempt (for logs); e.g. an upstream 5xx. */
  noteFailure(target: Target, reason: string): void {
    this.onFailure(target.id, reason);
  }

  async send(target: Target, req: UpstreamRequest): Promise<UpstreamResponse> {
    const url = requestUrl(target.baseUrl, req.path);
    const headers: Record<string, string> = { ...req.headers };
    if (target.credential) headers.authorization = `Bearer ${target.credential}`;
    headers[HOP_HEADER] = this.hopToken;
    headers[HOPS_HEADER] = String((req.hops ?? 0) + 1);
    const agent = target.kind === "deployment" ? this.trusted : this.policed;
    const observed = this.observer?.(target, req, headers);
    try {
      const res = await dispatchRequest(
        agent,
        {
          origin: url.origin,
          path: url.path,
          method: req.method,
          headers,
          body: req.body as Dispatcher.DispatchOptions["body"],
        },
        req.signal,
      );
      observed?.(res.status);
      return res;
    } catch (err) {
      observed?.(undefined);
      if (req.signal?.aborted) throw err;
      this.onFailure(target.id, describeFailure(err));
      throw new UpstreamConnectError({ cause: err });
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.trusted.close(), this.policed.close()]);
  }
}

/** A connector that refuses denied destinations before connecting: literal IPs and names alike. */
function policedConnector(options: UpstreamClientOptions): buildConnector.connector {
  const connect = buildConnector({ timeout: options.connectMs, lookup: options.policy.lookup });
  return (opts, callback) => {
    const literal = opts.hostname.replace(/^\[|\]$/g, "");
    if (isIP(literal) !== 0 && !options.policy.allows(literal)) {
      callback(new DestinationRefusedError(literal), null);
      return;
    }
    connect(opts, callback);
  };
}

/** Parsed request URLs by base URL and path: the same few recur on every call. */
const REQUEST_URLS_MAX = 1024;
const requestUrls = new Map<string, { origin: string; path: string }>();

function requestUrl(base: string, path: string): { origin: string; path: string } {
  const key = `${base}\n${path}`;
  let url = requestUrls.get(key);
  if (url === undefined) {
    const parsed = new URL(joinPath(base, path));
    url = { origin: parsed.origin, path: parsed.pathname + parsed.search };
    if (requestUrls.size >= REQUEST_URLS_MAX) requestUrls.clear();
    requestUrls.set(key, url);
  }
  return url;
}

function joinPath(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}${path}`;
}

function describeFailure(err: unknown): string {
  if (err instanceof DestinationRefusedError) return err.message;
  if (err instanceof undiciErrors.HeadersTimeoutError) return "upstream did not answer in time";
  if (err instanceof undiciErrors.ConnectTimeoutError) return "upstream connection timed out";
  if (err instanceof undiciErrors.SocketError) return "upstream closed the connection";
  const code = (err as { code?: string }).code;
  if (code === "ECONNREFUSED") return "upstream refused the connection";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "upstream host not found";
  return "upstream request failed";
}
