/**
 * Test double: a KubeClient that calls the in-memory API server store directly, with no I/O.
 * Used by the reconcile tests; the HTTP fake (kube-apiserver.ts) covers the wire.
 */
import { GatewayError } from "../../dataplane/core/errors.js";
import type {
  KubeClient,
  KubeList,
  WatchHandle,
  WatchRequest,
} from "../../operator/kube/kube-client.js";
import type { KubeObject, ResourceType, WatchEvent } from "../../operator/kube/types.js";
import { matchesSelector } from "./kube-apiserver-label-selector.js";
import { applyMergePatch } from "./kube-apiserver-merge-patch.js";
import { KubeApiStore, resourceId } from "./kube-apiserver-store.js";

export type Verb = "list" | "get" | "create" | "patch" | "apply" | "patchStatus" | "delete";

export class MemoryKubeClient implements KubeClient {
  /** Every call, in order, as "verb plural/name", for idempotency assertions. */
  readonly calls: string[] = [];
  private readonly failures: { verb: Verb; plural: string; error: GatewayError }[] = [];

  constructor(readonly store: KubeApiStore) {}

  /** The next call of verb on plural fails with error (one shot). */
  failNext(verb: Verb, plural: string, error: GatewayError): void {
    this.failures.push({ verb, plural, error });
  }

  private enter(verb: Verb, resource: ResourceType, name = ""): void {
    this.calls.push(`${verb} ${resource.plural}${name ? `/${name}` : ""}`);
    const index = this.failures.findIndex((f) => f.verb === verb && f.plural === resource.plural);
    if (index >= 0) {
      const [failure] = this.failures.splice(index, 1);
      if (failure) throw failure.error;
    }
  }

  async list(
    resource: ResourceType,
    namespace: string | undefined,
    labelSelector?: string,
  ): Promise<KubeList> {
    this.enter("list", resource);
    const { items, rv } = this.store.list(resource, namespace, labelSelector);
    return { items, resourceVersion: rv };
  }

  async watch(
    request: WatchRequest,
    onEvent: (event: WatchEvent) => void,
    onDone: (err?: unknown) => void,
  ): Promise<WatchHandle> {
    const id = resourceId(request.resource);
    const deliver = (stored: { resource: string; namespace: string; event: WatchEvent }): void => {
      if (stored.resource !== id) return;
      if (request.namespace !== undefined && stored.namespace !== request.namespace) return;
      if (!matchesSelector(stored.event.object, request.labelSelector)) return;
      onEvent(structuredClone(stored.event));
    };
    const start = this.store.watch(request.resourceVersion, (stored) =>
      queueMicrotask(() => deliver(stored)),
    );
    if (start.gone) {
      queueMicrotask(() => {
        onEvent({
          type: "ERROR",
          object: { metadata: { name: "" }, code: 410, reason: "Expired" },
        });
        onDone();
      });
      return { abort: () => undefined };
    }
    queueMicrotask(() => start.backlog.forEach(deliver));
    let done = false;
    return {
      abort: () => {
        if (done) return;
        done = true;
        start.unsubscribe();
        onDone();
      },
    };
  }

  async get(
    resource: ResourceType,
    namespace: string,
    name: string,
  ): Promise<KubeObject | undefined> {
    this.enter("get", resource, name);
    try {
      return this.store.get(resource, namespace, name);
    } catch (err) {
      if (err instanceof GatewayError && err.code === "resource_not_found") return undefined;
      throw err;
    }
  }

  async create(resource: ResourceType, namespace: string, object: KubeObject): Promise<KubeObject> {
    this.enter("create", resource, object.metadata.name);
    return this.store.create(resource, namespace, object);
  }

  async patch(
    resource: ResourceType,
    namespace: string,
    name: string,
    mergePatch: object,
  ): Promise<KubeObject> {
    this.enter("patch", resource, name);
    return this.store.update(
      resource,
      namespace,
      name,
      (current) => applyMergePatch(current, mergePatch) as KubeObject,
    );
  }

  async apply(
    resource: ResourceType,
    namespace: string,
    object: KubeObject,
    fieldManager: string,
  ): Promise<KubeObject> {
    this.enter("apply", resource, object.metadata.name);
    return this.store.apply(resource, namespace, structuredClone(object), fieldManager);
  }

  async patchStatus(
    resource: ResourceType,
    namespace: string,
    name: string,
    mergePatch: object,
  ): Promise<KubeObject> {
    this.enter("patchStatus", resource, name);
    return this.store.update(
      resource,
      namespace,
      name,
      (current) => applyMergePatch(current, mergePatch) as KubeObject,
      "status",
    );
  }

  async delete(resource: ResourceType, namespace: string, name: string): Promise<void> {
    this.enter("delete", resource, name);
    try {
      this.store.delete(resource, namespace, name);
    } catch (err) {
      if (err instanceof GatewayError && err.code === "resource_not_found") return;
      throw err;
    }
  }
}
