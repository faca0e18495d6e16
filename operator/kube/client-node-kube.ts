import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  Watch,
  setHeaderOptions,
  type V1Service,
  type KubeConfig,
} from "@kubernetes/client-node";
import { GatewayError } from "../../dataplane/core/errors.js";
import { kubeStatusError } from "./kube-errors.js";
import type { KubeClient, KubeList, WatchHandle, WatchRequest } from "./kube-client.js";
import {
  collectionPath,
  isRecord,
  type KubeObject,
  type ResourceType,
  type WatchEvent,
} from "./types.js";

const MERGE_PATCH = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const APPLY_PATCH = setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply);

/** KubeClient over @kubernetes/client-node: CustomObjectsApi for grouped resources, CoreV1Api for core. */
export class ClientNodeKube implements KubeClient {
  private readonly custom: CustomObjectsApi;
  private readonly core: CoreV1Api;
  private readonly watcher: Watch;

  constructor(config: KubeConfig) {
    this.custom = config.makeApiClient(CustomObjectsApi);
    this.core = config.makeApiClient(CoreV1Api);
    this.watcher = new Watch(config);
  }

  async list(
    resource: ResourceType,
    namespace: string | undefined,
    labelSelector?: string,
  ): Promise<KubeList> {
    const raw = await call(() => this.rawList(resource, namespace, labelSelector));
    const body = plain(raw);
    const items = Array.isArray(body.items) ? body.items.map((item) => asObject(item)) : [];
    const metadata = isRecord(body.metadata) ? body.metadata : {};
    return { items, resourceVersion: String(metadata.resourceVersion ?? "") };
  }

  private rawList(
    resource: ResourceType,
    namespace: string | undefined,
    labelSelector?: string,
  ): Promise<unknown> {
    const { group, version, plural } = resource;
    if (group !== "") {
      return namespace === undefined
        ? this.custom.listClusterCustomObject({ group, version, plural, labelSelector })
        : this.custom.listNamespacedCustomObject({
            group,
            version,
            namespace,
            plural,
            labelSelector,
          });
    }
    if (plural === "pods") {
      return namespace === undefined
        ? this.core.listPodForAllNamespaces({ labelSelector })
        : this.core.listNamespacedPod({ namespace, labelSelector });
    }
    if (plural === "services") {
      return namespace === undefined
        ? this.core.listServiceForAllNamespaces({ labelSelector })
        : this.core.listNamespacedService({ namespace, labelSelector });
    }
    throw unsupported(resource, "list");
  }

  async watch(
    request: WatchRequest,
    onEvent: (event: WatchEvent) => void,
    onDone: (err?: unknown) => void,
  ): Promise<WatchHandle> {
    const query = {
      resourceVersion: request.resourceVersion,
      allowWatchBookmarks: request.allowWatchBookmarks,
      labelSelector: request.labelSelector,
      timeoutSeconds: request.timeoutSeconds,
    };
    const controller = await this.watcher.watch(
      collectionPath(request.resource, request.namespace),
      query,
      (type: string, object: unknown) => {
        if (!isWatchType(type) || !isRecord(object)) return;
        onEvent({ type, object: asObject(object) });
      },
      (err: unknown) => onDone(err === null ? undefined : err),
    );
    return { abort: () => controller.abort() };
  }

  async get(
    resource: ResourceType,
    namespace: string,
    name: string,
  ): Promise<KubeObject | undefined> {
    try {
      return asObject(plain(await call(() => this.rawGet(resource, namespace, name))));
    } catch (err) {
      if (err instanceof GatewayError && err.code === "resource_not_found") return undefined;
      throw err;
    }
  }

  private rawGet(resource: ResourceType, namespace: string, name: string): Promise<unknown> {
    const { group, version, plural } = resource;
    if (group !== "")
      return this.custom.getNamespacedCustomObject({ group, version, namespace, plural, name });
    if (plural === "services") return this.core.readNamespacedService({ namespace, name });
    if (plural === "pods") return this.core.readNamespacedPod({ namespace, name });
    if (plural === "namespaces") return this.core.readNamespace({ name });
    throw unsupported(resource, "get");
  }

  async create(resource: ResourceType, namespace: string, object: KubeObject): Promise<KubeObject> {
    const { group, version, plural } = resource;
    const raw = await call(() => {
      if (group !== "")
        return this.custom.createNamespacedCustomObject({
          group,
          version,
          namespace,
          plural,
          body: object,
        });
      // The typed core APIs take their model classes; the wire JSON has the same field names.
      if (plural === "services")
        return this.core.createNamespacedService({ namespace, body: object as V1Service });
      throw unsupported(resource, "create");
    });
    return asObject(plain(raw));
  }

  async patch(
    resource: ResourceType,
    namespace: string,
    name: string,
    mergePatch: object,
  ): Promise<KubeObject> {
    const { group, version, plural } = resource;
    const raw = await call(() => {
      if (group !== "") {
        return this.custom.patchNamespacedCustomObject(
          { group, version, namespace, plural, name, body: mergePatch },
          MERGE_PATCH,
        );
      }
      if (plural === "services")
        return this.core.patchNamespacedService({ namespace, name, body: mergePatch }, MERGE_PATCH);
      throw unsupported(resource, "patch");
    });
    return asObject(plain(raw));
  }

  async apply(
    resource: ResourceType,
    namespace: string,
    object: KubeObject,
    fieldManager: string,
  ): Promise<KubeObject> {
    const { group, version, plural } = resource;
    const name = object.metadata.name;
    const raw = await call(() => {
      if (group !== "") {
        return this.custom.patchNamespacedCustomObject(
          { group, version, namespace, plural, name, body: object, fieldManager, force: true },
          APPLY_PATCH,
        );
      }
      if (plural === "services")
        return this.core.patchNamespacedService(
          { namespace, name, body: object, fieldManager, force: true },
          APPLY_PATCH,
        );
      throw unsupported(resource, "apply");
    });
    return asObject(plain(raw));
  }

  async patchStatus(
    resource: ResourceType,
    namespace: string,
    name: string,
    mergePatch: object,
  ): Promise<KubeObject> {
    const { group, version, plural } = resource;
    if (group === "") throw unsupported(resource, "patchStatus");
    const raw = await call(() =>
      this.custom.patchNamespacedCustomObjectStatus(
        { group, version, namespace, plural, name, body: mergePatch },
        MERGE_PATCH,
      ),
    );
    return asObject(plain(raw));
  }

  async delete(resource: ResourceType, namespace: string, name: string): Promise<void> {
    const { group, version, plural } = resource;
    try {
      await call(() => {
        if (group !== "")
          return this.custom.deleteNamespacedCustomObject({
            group,
            version,
            namespace,
            plural,
            name,
          });
        if (plural === "services") return this.core.deleteNamespacedService({ namespace, name });
        throw unsupported(resource, "delete");
      });
    } catch (err) {
      if (err instanceof GatewayError && err.code === "resource_not_found") return;
      throw err;
    }
  }
}

function isWatchType(type: string): type is WatchEvent["type"] {
  return (
    type === "ADDED" ||
    type === "MODIFIED" ||
    type === "DELETED" ||
    type === "BOOKMARK" ||
    type === "ERROR"
  );
}

/** Typed client-node models (Date fields, classes) back to wire JSON. */
function plain(value: unknown): Record<string, unknown> {
  const parsed: unknown = JSON.parse(JSON.stringify(value ?? {}));
  return isRecord(parsed) ? parsed : {};
}

function asObject(value: unknown): KubeObject {
  if (!isRecord(value) || !isRecord(value.metadata) || typeof value.metadata.name !== "string") {
    throw new GatewayError(
      "internal_error",
      "the API server returned an object without metadata.name",
    );
  }
  return value as KubeObject;
}

async function call<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    if (err instanceof ApiException)
      return Promise.reject(kubeStatusError(err.code, statusMessage(err.body), err));
    throw new GatewayError("service_unavailable", "the Kubernetes API is unreachable", {
      cause: err,
    });
  }
}

function statusMessage(body: unknown): string {
  if (typeof body === "string") {
    try {
      return statusMessage(JSON.parse(body));
    } catch {
      return body.slice(0, 200);
    }
  }
  return isRecord(body) && typeof body.message === "string" ? body.message : "Kubernetes API error";
}

function unsupported(resource: ResourceType, verb: string): GatewayError {
  return new GatewayError(
    "internal_error",
    `${verb} of core ${resource.plural} is not used by the operator`,
  );
}
