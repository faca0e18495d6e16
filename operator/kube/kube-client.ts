import type { KubeObject, ResourceType, WatchEvent } from "./types.js";

/**
 * The operator's view of the Kubernetes API. One implementation talks to a real API server through
 * @kubernetes/client-node; tests use an in-memory one. Failures are GatewayErrors:
 * 404 resource_not_found, 409 resource_conflict, 422 validation_failed, anything else transient.
 */
export interface KubeClient {
  list(
    resource: ResourceType,
    namespace: string | undefined,
    labelSelector?: string,
  ): Promise<KubeList>;
  /** Streams events after resourceVersion until the stream ends; onDone(err) is called exactly once. */
  watch(
    request: WatchRequest,
    onEvent: (event: WatchEvent) => void,
    onDone: (err?: unknown) => void,
  ): Promise<WatchHandle>;
  /** undefined when the object does not exist. */
  get(resource: ResourceType, namespace: string, name: string): Promise<KubeObject | undefined>;
  create(resource: ResourceType, namespace: string, object: KubeObject): Promise<KubeObject>;
  /** JSON merge patch; put metadata.resourceVersion in the patch for an optimistic-concurrency check. */
  patch(
    resource: ResourceType,
    namespace: string,
    name: string,
    mergePatch: object,
  ): Promise<KubeObject>;
  /**
   * Server-side apply as `fieldManager`, forcing conflicts: creates the object or sets the fields in
   * `object`; fields this manager applied before and leaves out now are removed.
   */
  apply(
    resource: ResourceType,
    namespace: string,
    object: KubeObject,
    fieldManager: string,
  ): Promise<KubeObject>;
  /** JSON merge patch of the status subresource. */
  patchStatus(
    resource: ResourceType,
    namespace: string,
    name: string,
    mergePatch: object,
  ): Promise<KubeObject>;
  /** Resolves when the object is gone or marked for deletion; a missing object is not an error. */
  delete(resource: ResourceType, namespace: string, name: string): Promise<void>;
}

export interface KubeList {
  items: KubeObject[];
  resourceVersion: string;
}

export interface WatchRequest {
  resource: ResourceType;
  namespace: string | undefined;
  resourceVersion: string;
  labelSelector?: string;
  allowWatchBookmarks: boolean;
  timeoutSeconds?: number;
}

export interface WatchHandle {
  abort(): void;
}
