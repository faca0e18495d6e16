import { createServer, type Server } from "node:http";
import type { Registry } from "prom-client";

export interface HealthServerOptions {
  port: number;
  host?: string;
  registry: Registry;
  /** Live: the process works (event loop turns, not shutting down). */
  live(): boolean;
  /** Ready: caches synced; a standby replica is ready too, it just does not reconcile. */
  ready(): boolean;
}

/** /healthz, /readyz and /metrics on a small HTTP server. */
export async function startHealthServer(options: HealthServerOptions): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (path === "/healthz" || path === "/readyz") {
      const ok = path === "/healthz" ? options.live() : options.ready();
      response
        .writeHead(ok ? 200 : 503, { "content-type": "text/plain" })
        .end(ok ? "ok" : "not ready");
      return;
    }
    if (path === "/metrics") {
      options.registry
        .metrics()
        .then((text) =>
          response.writeHead(200, { "content-type": options.registry.contentType }).end(text),
        )
        .catch(() => response.writeHead(500).end());
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "0.0.0.0", () => resolve());
  });
  return server;
}
