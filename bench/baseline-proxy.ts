/**
 * The benchmark's baseline: a bare pass-through proxy with no policy at all. It forwards every
 * /v1/* request to one OpenAI-compatible upstream over an undici keep-alive pool, streaming the
 * request body up and the response body (SSE too) down as it arrives, and aborts the upstream
 * request when the client goes away. The gateway is measured against this.
 *
 * Two ways to relay the response body, the same bytes either way:
 * - `pipeline` (the baseline the issue-13 targets are stated against): `stream.pipeline`, which
 *   at the end of every response aborts an AbortController of its own, and so builds a
 *   DOMException with a stack trace per request;
 * - `pipe` (the lean proxy, a second reference): `readable.pipe(res)`, the upstream body
 *   destroyed with the response on error. No per-request exception: 14-30% less CPU per request
 *   (docs/benchmarks.md, "Issue 13, twelfth pass").
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { pipeline } from "node:stream/promises";
import { Pool } from "undici";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "host",
]);

function forwardable(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name.toLowerCase())) out[name] = value;
  }
  return out;
}

export interface BaselineProxy {
  url: string;
  close(): Promise<void>;
}

export type BodyRelay = "pipeline" | "pipe";

/** Starts the proxy on 127.0.0.1 (random port) in front of `upstreamBase` (e.g. http://h:p/v1). */
export async function startBaselineProxy(
  upstreamBase: string,
  relay: BodyRelay = "pipeline",
): Promise<BaselineProxy> {
  const base = new URL(upstreamBase);
  const basePath = base.pathname.replace(/\/$/, "");
  const pool = new Pool(base.origin, { connections: 256, pipelining: 1 });

  const server: Server = createServer((req, res) => {
    const path = req.url ?? "/";
    if (!path.startsWith("/v1/")) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not proxied"}');
      return;
    }
    const controller = new AbortController();
    res.once("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    pool
      .request({
        method: req.method === "GET" ? "GET" : "POST",
        path: basePath + path.slice(3),
        headers: forwardable(req.headers),
        body: hasBody ? req : undefined,
        signal: controller.signal,
      })
      .then(async (upstream) => {
        res.writeHead(upstream.statusCode, forwardable(upstream.headers));
        if (relay === "pipeline") return pipeline(upstream.body, res);
        upstream.body.once("error", () => res.destroy());
        upstream.body.pipe(res);
      })
      .catch(() => {
        if (!res.headersSent) {
          res
            .writeHead(502, { "content-type": "application/json" })
            .end('{"error":"upstream failed"}');
        } else {
          res.destroy();
        }
      });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.close();
    },
  };
}
