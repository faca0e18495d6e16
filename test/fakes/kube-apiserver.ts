/**
 * Test double: a fake Kubernetes API server over plain HTTP, backed by KubeApiStore. It serves list,
 * watch (resourceVersion, bookmarks, 410 Gone as an ERROR event), get, create, replace, merge /
 * strategic (treated as merge) / server-side apply (field ownership, see kube-apiserver-apply.ts) /
 * JSON patch, delete with
 * finalizers, the status subresource, and Status bodies for 404, 409 and 422. stop() and start()
 * reuse the same port and keep the store, like an API server restarting in front of etcd.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { parse as parseYaml } from "yaml";
import { GatewayError } from "../../dataplane/core/errors.js";
import type { KubeObject, ResourceType } from "../../operator/kube/types.js";
import type { Admission } from "./kube-apiserver-admission.js";
import { applyJsonPatch } from "./kube-apiserver-json-patch.js";
import { parseObject, readBody, sendJson, sendStatus, writeEvent } from "./kube-apiserver-wire.js";
import { applyMergePatch } from "./kube-apiserver-merge-patch.js";
import { KubeApiStore } from "./kube-apiserver-store.js";
import { routeOf, type Route } from "./kube-apiserver-routes.js";
import { serveWatch } from "./kube-apiserver-watch.js";

export interface InjectedFailure {
  method: string;
  /** Substring of the request path. */
  path: string;
  status: number;
  times?: number;
}

export class FakeKubeApiServer {
  readonly store: KubeApiStore;
  /** "METHOD /path" of every request, in order. */
  readonly requests: string[] = [];
  private server: Server | undefined;
  private port = 0;
  private readonly watches = new Set<ServerResponse>();
  private readonly failures: InjectedFailure[] = [];
  private bookmarkTimer: NodeJS.Timeout | undefined;

  constructor(
    resources: readonly ResourceType[],
    private readonly options: {
      bookmarkIntervalMs?: number;
      historyLimit?: number;
      /** What the server checks and normalises on writes; default the built-in checks only. */
      admission?: Admission;
    } = {},
  ) {
    this.store = new KubeApiStore(
      resources,
      options.historyLimit ?? 1000,
      undefined,
      options.admission,
    );
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** A kubeconfig for @kubernetes/client-node pointing at this server over plain HTTP. */
  kubeConfig(): KubeConfig {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: "fake", server: this.url, skipTLSVerify: true }],
      users: [{ name: "fake", token: "fake-token" }],
      contexts: [{ name: "fake", cluster: "fake", user: "fake" }],
      currentContext: "fake",
    });
    return config;
  }

  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    if (this.options.bookmarkIntervalMs) {
      this.bookmarkTimer = setInterval(() => this.sendBookmarks(), this.options.bookmarkIntervalMs);
      this.bookmarkTimer.unref();
    }
  }

  /** Drops every connection (open watches included) and stops listening; the store survives. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    clearInterval(this.bookmarkTimer);
    for (const response of this.watches) response.destroy();
    this.watches.clear();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  failNext(failure: InjectedFailure): void {
    this.failures.push({ times: 1, ...failure });
  }

  /** Sends a BOOKMARK with the current resourceVersion to every watch that asked for bookmarks. */
  sendBookmarks(): void {
    for (const response of this.watches) {
      const bookmarks = (response as ServerResponse & { bookmarkKind?: string }).bookmarkKind;
      if (bookmarks === undefined) continue;
      writeEvent(response, {
        type: "BOOKMARK",
        object: {
          kind: bookmarks,
          metadata: { name: "", resourceVersion: this.store.currentResourceVersion() },
        },
      });
    }
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://fake");
    const method = request.method ?? "GET";
    this.requests.push(`${method} ${url.pathname}`);
    try {
      const failure = this.failures.find(
        (f) => f.method === method && url.pathname.includes(f.path),
      );
      if (failure) {
        failure.times = (failure.times ?? 1) - 1;
        if (failure.times <= 0) this.failures.splice(this.failures.indexOf(failure), 1);
        return sendStatus(response, failure.status, "injected failure");
      }
      const route = routeOf(this.store.resources, url.pathname);
      if (!route)
        return sendStatus(
          response,
          404,
          `the server could not find the requested resource ${url.pathname}`,
        );
      const body = method === "GET" || method === "DELETE" ? undefined : await readBody(request);
      const result = await this.dispatch(method, route, url, request, response, body);
      if (result !== undefined) sendJson(response, method === "POST" ? 201 : 200, result);
    } catch (err) {
      if (err instanceof GatewayError)
        return sendStatus(
          response,
          err.status,
          err.message,
          err.message.includes("already exists"),
        );
      return sendStatus(response, 500, err instanceof Error ? err.message : "internal error");
    }
  }

  private async dispatch(
    method: string,
    route: Route,
    url: URL,
    request: IncomingMessage,
    response: ServerResponse,
    body: string | undefined,
  ): Promise<unknown> {
    const { resource, name, subresource } = route;
    // Cluster-scoped objects (Namespaces) are stored under the namespace "".
    const namespace = resource.namespaced ? route.namespace : name === undefined ? undefined : "";
    const selector = url.searchParams.get("labelSelector") ?? undefined;
    if (name === undefined) {
      if (method === "GET" && url.searchParams.get("watch") === "true") {
        serveWatch(this.store, this.watches, route, url, response);
        return undefined;
      }
      if (method === "GET") {
        const { items, rv } = this.store.list(resource, namespace, selector);
        return {
          apiVersion: "v1",
          kind: `${resource.kind}List`,
          metadata: { resourceVersion: rv },
          items,
        };
      }
      if (method === "POST" && namespace !== undefined) {
        const object = parseObject(body);
        return this.store.create(resource, namespace, object);
      }
      throw new GatewayError("method_not_allowed", `${method} not supported on a collection`);
    }
    if (namespace === undefined) throw new GatewayError("resource_not_found", "namespace required");
    if (method === "GET") return this.store.get(resource, namespace, name);
    if (method === "DELETE") return this.store.delete(resource, namespace, name);
    if (method === "PUT") {
      const object = parseObject(body);
      return this.store.update(resource, namespace, name, () => object, subresource);
    }
    if (method === "PATCH") {
      const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";
      const manager = url.searchParams.get("fieldManager") ?? "unknown";
      if (type === "application/apply-patch+yaml") {
        if (subresource === "status")
          throw new GatewayError("method_not_allowed", "apply to status is not supported here");
        const config = parseYaml(body ?? "") as KubeObject;
        if (url.searchParams.get("force") !== "true" && manager === "unknown")
          throw new GatewayError("validation_failed", "PATCH apply requires fieldManager");
        return this.store.apply(
          resource,
          namespace,
          { ...config, metadata: { ...config.metadata, name } },
          manager,
        );
      }
      const patch = JSON.parse(body ?? "null");
      return this.store.update(
        resource,
        namespace,
        name,
        (current) => {
          if (type === "application/json-patch+json")
            return applyJsonPatch(current, patch) as KubeObject;
          return applyMergePatch(current, patch) as KubeObject;
        },
        subresource,
        manager,
      );
    }
    throw new GatewayError("method_not_allowed", `${method} not supported`);
  }

  /** Every open watch ends cleanly (as an API server does at its watch timeout). */
  endWatches(): void {
    for (const response of this.watches) response.end();
  }
}
