import type { ServerResponse } from "node:http";
import { matchesSelector } from "./kube-apiserver-label-selector.js";
import { resourceId, type KubeApiStore, type StoredEvent } from "./kube-apiserver-store.js";
import type { Route } from "./kube-apiserver-routes.js";
import { writeEvent } from "./kube-apiserver-wire.js";

/**
 * Serves one watch: from the requested resourceVersion (410 Gone as an ERROR event when it is too
 * old; the current list as ADDED events when none is given), filtered by namespace and label
 * selector, bookmarks when asked for, ended at `timeoutSeconds`. Open watches are kept in `watches`.
 */
export function serveWatch(
  store: KubeApiStore,
  watches: Set<ServerResponse>,
  route: Route,
  url: URL,
  response: ServerResponse,
): void {
  const id = resourceId(route.resource);
  const selector = url.searchParams.get("labelSelector") ?? undefined;
  const requested = url.searchParams.get("resourceVersion") ?? "";
  response.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
  response.flushHeaders();
  const forward = (stored: StoredEvent): void => {
    if (stored.resource !== id) return;
    if (route.namespace !== undefined && stored.namespace !== route.namespace) return;
    if (!matchesSelector(stored.event.object, selector)) return;
    writeEvent(response, stored.event);
  };
  const fromRv = requested === "" || requested === "0" ? store.currentResourceVersion() : requested;
  const start = store.watch(fromRv, forward);
  if (start.gone) {
    writeEvent(response, {
      type: "ERROR",
      object: {
        kind: "Status",
        apiVersion: "v1",
        metadata: { name: "" },
        status: "Failure",
        message: `too old resource version: ${requested}`,
        reason: "Expired",
        code: 410,
      },
    });
    response.end();
    return;
  }
  if (requested === "" || requested === "0") {
    for (const object of store.list(route.resource, route.namespace, selector).items)
      writeEvent(response, { type: "ADDED", object });
  }
  for (const stored of start.backlog) forward(stored);
  if (url.searchParams.get("allowWatchBookmarks") === "true") {
    (response as ServerResponse & { bookmarkKind?: string }).bookmarkKind = route.resource.kind;
  }
  watches.add(response);
  const timeoutSeconds = Number(url.searchParams.get("timeoutSeconds") ?? "0");
  const timer =
    timeoutSeconds > 0 ? setTimeout(() => response.end(), timeoutSeconds * 1000) : undefined;
  timer?.unref();
  const cleanup = (): void => {
    clearTimeout(timer);
    start.unsubscribe();
    watches.delete(response);
  };
  response.on("close", cleanup);
}
