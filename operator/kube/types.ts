/** The minimal shape of a Kubernetes object the operator reads and writes (wire JSON, camelCase). */

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  /** Server-side apply field ownership (read-only for the operator). */
  managedFields?: unknown[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec?: unknown;
  status?: unknown;
  [field: string]: unknown;
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject;
}

/** A group/version/plural triple plus the kind, enough to build any REST path. */
export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

export function apiVersionOf(resource: ResourceType): string {
  return resource.group === "" ? resource.version : `${resource.group}/${resource.version}`;
}

/** "/api/v1/namespaces/ns/pods" or "/apis/group/version/plural" (all namespaces). */
export function collectionPath(resource: ResourceType, namespace: string | undefined): string {
  const root =
    resource.group === ""
      ? `/api/${resource.version}`
      : `/apis/${resource.group}/${resource.version}`;
  return namespace === undefined
    ? `${root}/${resource.plural}`
    : `${root}/namespaces/${namespace}/${resource.plural}`;
}

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace === undefined ? name : `${namespace}/${name}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
