/**
 * Test double: the storage semantics of a Kubernetes API server, in memory. Shared by the HTTP fake
 * (kube-apiserver.ts) and the in-process client (kube-apiserver-memory-client.ts). It implements
 * resourceVersion, generation, finalizers with deletionTimestamp, the status subresource, optimistic
 * concurrency (409), a bounded watch history (410 Gone for a too-old resourceVersion), admission
 * (kube-apiserver-admission.ts) and server-side apply field ownership (kube-apiserver-apply.ts).
 */
import { randomUUID } from "node:crypto";
import { GatewayError } from "../../dataplane/core/errors.js";
import type { KubeObject, ResourceType, WatchEvent } from "../../operator/kube/types.js";
import { builtInAdmission, type Admission } from "./kube-apiserver-admission.js";
import { recordUpdate, serverSideApply } from "./kube-apiserver-apply.js";
import { matchesSelector } from "./kube-apiserver-label-selector.js";

export interface StoredEvent {
  rv: number;
  resource: string;
  namespace: string;
  event: WatchEvent;
}

export type StoreListener = (stored: StoredEvent) => void;

export type WatchStart =
  { gone: true } | { gone: false; backlog: StoredEvent[]; unsubscribe: () => void };

export function resourceId(resource: ResourceType): string {
  return `${resource.group}/${resource.version}/${resource.plural}`;
}

export class KubeApiStore {
  private rv = 1;
  /** Events at or below this resourceVersion are no longer replayable. */
  private compactedRv = 1;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly history: StoredEvent[] = [];
  private readonly listeners = new Set<StoreListener>();
  private readonly statusSubresource = new Set<string>();

  constructor(
    readonly resources: readonly ResourceType[],
    private readonly historyLimit = 1000,
    private readonly now: () => Date = () => new Date(),
    private readonly admission: Admission = builtInAdmission,
  ) {
    for (const resource of resources) {
      this.objects.set(resourceId(resource), new Map());
      if (
        resource.group !== "" &&
        resource.plural !== "leases" &&
        resource.group !== "events.k8s.io"
      ) {
        this.statusSubresource.add(resourceId(resource));
      }
    }
  }

  currentResourceVersion(): string {
    return String(this.rv);
  }

  /** Forget the watch history, as etcd compaction does: older resourceVersions now get 410 Gone. */
  compact(): void {
    this.compactedRv = this.rv;
    this.history.length = 0;
  }

  list(
    resource: ResourceType,
    namespace?: string,
    labelSelector?: string,
  ): { items: KubeObject[]; rv: string } {
    const items = [...this.table(resource).values()]
      .filter((o) => namespace === undefined || o.metadata.namespace === namespace)
      .filter((o) => matchesSelector(o, labelSelector))
      .map((o) => structuredClone(o));
    return { items, rv: String(this.rv) };
  }

  get(resource: ResourceType, namespace: string, name: string): KubeObject {
    const found = this.table(resource).get(`${namespace}/${name}`);
    if (!found) throw notFound(resource, name);
    return structuredClone(found);
  }

  create(resource: ResourceType, namespace: string, input: KubeObject): KubeObject {
    const table = this.table(resource);
    const name = input.metadata.name;
    if (table.has(`${namespace}/${name}`)) {
      throw new GatewayError("resource_conflict", `${resource.plural} "${name}" already exists`);
    }
    const object = structuredClone(input);
    if (this.statusSubresource.has(resourceId(resource))) delete object.status;
    this.admission(resource, object);
    object.apiVersion =
      resource.group === "" ? resource.version : `${resource.group}/${resource.version}`;
    object.kind = resource.kind;
    object.metadata = {
      ...object.metadata,
      namespace,
      uid: randomUUID(),
      generation: 1,
      creationTimestamp: this.now().toISOString(),
      resourceVersion: this.nextRv(),
    };
    delete object.metadata.deletionTimestamp;
    table.set(`${namespace}/${name}`, object);
    this.record(resource, namespace, "ADDED", object);
    return structuredClone(object);
  }

  /**
   * Replace an object with mutate(current). With subresource "status" only .status changes; on the
   * main resource .status is kept as stored when the type has a status subresource. A resourceVersion
   * in the result that differs from the stored one is a 409.
   */
  update(
    resource: ResourceType,
    namespace: string,
    name: string,
    mutate: (current: KubeObject) => KubeObject,
    subresource?: "status",
    manager = "unknown",
  ): KubeObject {
    const table = this.table(resource);
    const key = `${namespace}/${name}`;
    const current = table.get(key);
    if (!current) throw notFound(resource, name);
    const proposed = mutate(structuredClone(current));
    if (subresource !== "status") {
      this.admission(resource, proposed, current);
      if (manager !== "") recordUpdate(current, proposed, manager);
    }
    const wantRv = proposed.metadata?.resourceVersion;
    if (wantRv !== undefined && wantRv !== current.metadata.resourceVersion) {
      throw new GatewayError(
        "resource_conflict",
        `Operation cannot be fulfilled on ${resource.plural} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      );
    }
    const next = this.merged(resource, current, proposed, subresource);
    if (JSON.stringify(next) === JSON.stringify(current)) return structuredClone(current);
    next.metadata.resourceVersion = this.nextRv();
    if (
      next.metadata.deletionTimestamp !== undefined &&
      (next.metadata.finalizers ?? []).length === 0
    ) {
      table.delete(key);
      this.record(resource, namespace, "DELETED", next);
      return structuredClone(next);
    }
    table.set(key, next);
    this.record(resource, namespace, "MODIFIED", next);
    return structuredClone(next);
  }

  private merged(
    resource: ResourceType,
    current: KubeObject,
    proposed: KubeObject,
    subresource?: "status",
  ): KubeObject {
    if (subresource === "status") {
      const next = structuredClone(current);
      next.status = proposed.status;
      return next;
    }
    const next: KubeObject = { ...structuredClone(proposed), metadata: { ...current.metadata } };
    const meta = proposed.metadata ?? current.metadata;
    for (const field of [
      "labels",
      "annotations",
      "finalizers",
      "ownerReferences",
      "managedFields",
    ] as const) {
      if (meta[field] === undefined) delete next.metadata[field];
      else next.metadata[field] = structuredClone(meta[field]) as never;
    }
    if (this.statusSubresource.has(resourceId(resource)))
      next.status = structuredClone(current.status);
    if (next.status === undefined) delete next.status;
    if (specOf(next) !== specOf(current))
      next.metadata.generation = (current.metadata.generation ?? 1) + 1;
    return next;
  }

  /** Server-side apply by `manager` (force): creates the object, or updates the fields it owns. */
  apply(
    resource: ResourceType,
    namespace: string,
    config: KubeObject,
    manager: string,
  ): KubeObject {
    const name = config.metadata.name;
    if (!this.table(resource).has(`${namespace}/${name}`)) {
      return this.create(resource, namespace, serverSideApply(undefined, config, manager));
    }
    return this.update(
      resource,
      namespace,
      name,
      (current) => serverSideApply(current, config, manager),
      undefined,
      "",
    );
  }

  /** Marks for deletion while finalizers remain; removes the object otherwise. */
  delete(resource: ResourceType, namespace: string, name: string): KubeObject {
    const table = this.table(resource);
    const key = `${namespace}/${name}`;
    const current = table.get(key);
    if (!current) throw notFound(resource, name);
    if ((current.metadata.finalizers ?? []).length > 0) {
      if (current.metadata.deletionTimestamp !== undefined) return structuredClone(current);
      const next = structuredClone(current);
      next.metadata.deletionTimestamp = this.now().toISOString();
      next.metadata.resourceVersion = this.nextRv();
      table.set(key, next);
      this.record(resource, namespace, "MODIFIED", next);
      return structuredClone(next);
    }
    table.delete(key);
    const gone = structuredClone(current);
    gone.metadata.resourceVersion = this.nextRv();
    this.record(resource, namespace, "DELETED", gone);
    return structuredClone(gone);
  }

  /** Replays history after fromRv, then streams live events; { gone } when fromRv was compacted. */
  watch(fromRv: string, listener: StoreListener): WatchStart {
    const from = Number(fromRv === "" ? this.rv : fromRv);
    if (!Number.isFinite(from) || from < this.compactedRv) return { gone: true };
    const backlog = this.history.filter((e) => e.rv > from);
    this.listeners.add(listener);
    return { gone: false, backlog, unsubscribe: () => this.listeners.delete(listener) };
  }

  private table(resource: ResourceType): Map<string, KubeObject> {
    const table = this.objects.get(resourceId(resource));
    if (!table)
      throw new GatewayError(
        "resource_not_found",
        `the server could not find the requested resource ${resource.plural}`,
      );
    return table;
  }

  private nextRv(): string {
    this.rv += 1;
    return String(this.rv);
  }

  private record(
    resource: ResourceType,
    namespace: string,
    type: WatchEvent["type"],
    object: KubeObject,
  ): void {
    const stored: StoredEvent = {
      rv: Number(object.metadata.resourceVersion),
      resource: resourceId(resource),
      namespace,
      event: { type, object: structuredClone(object) },
    };
    this.history.push(stored);
    if (this.history.length > this.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.historyLimit);
      this.compactedRv = dropped[dropped.length - 1]?.rv ?? this.compactedRv;
    }
    for (const listener of [...this.listeners]) listener(stored);
  }
}

function specOf(object: KubeObject): string {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = object;
  return JSON.stringify(rest);
}

function notFound(resource: ResourceType, name: string): GatewayError {
  return new GatewayError("resource_not_found", `${resource.plural} "${name}" not found`);
}
