/**
 * Test double support: server-side apply field ownership, as the API server tracks it in
 * metadata.managedFields. Simplified where our tests do not need more: every list is atomic (one
 * owner for the whole list; the real server merges some lists by key), and conflicts are always
 * forced (the operator applies with force=true).
 *
 * - apply(current, config, manager): fields the manager applied before and leaves out now are
 *   removed unless another manager owns them; the config is merged in; the manager owns exactly
 *   the config's fields afterwards (taken from other managers).
 * - an update (merge / JSON patch, PUT) by `manager` takes ownership of the fields it changed.
 */
import { isRecord, type KubeObject } from "../../operator/kube/types.js";

type Path = string[];
const SEP = "\u0000";

export interface ManagedFieldsEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion?: string;
  fieldsType: "FieldsV1";
  fieldsV1: Record<string, unknown>;
}

/** The part of an object that field ownership covers. */
function ownedPart(object: KubeObject): Record<string, unknown> {
  const { apiVersion: _a, kind: _k, status: _s, metadata, ...rest } = object;
  const { labels, annotations, ownerReferences } = metadata;
  const meta = Object.fromEntries(
    Object.entries({ labels, annotations, ownerReferences }).filter(([, v]) => v !== undefined),
  );
  return { ...rest, ...(Object.keys(meta).length > 0 ? { metadata: meta } : {}) };
}

function leaves(value: unknown, path: Path = [], out = new Set<string>()): Set<string> {
  if (isRecord(value) && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value)) leaves(child, [...path, key], out);
  } else if (path.length > 0) out.add(path.join(SEP));
  return out;
}

function toFieldsV1(paths: Set<string>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const path of paths) {
    let node = root;
    for (const key of path.split(SEP)) {
      const next = (node[`f:${key}`] ??= {}) as Record<string, unknown>;
      node = next;
    }
  }
  return root;
}

function fromFieldsV1(fields: unknown, path: Path = [], out = new Set<string>()): Set<string> {
  if (!isRecord(fields)) return out;
  const children = Object.entries(fields).filter(([k]) => k.startsWith("f:"));
  if (children.length === 0 && path.length > 0) out.add(path.join(SEP));
  for (const [key, child] of children) fromFieldsV1(child, [...path, key.slice(2)], out);
  return out;
}

function managedOf(object: KubeObject | undefined): ManagedFieldsEntry[] {
  const raw = (object?.metadata as { managedFields?: unknown } | undefined)?.managedFields;
  return Array.isArray(raw) ? (raw as ManagedFieldsEntry[]) : [];
}

function setManaged(object: KubeObject, entries: ManagedFieldsEntry[]): void {
  const kept = entries.filter((e) => Object.keys(e.fieldsV1).length > 0);
  (object.metadata as { managedFields?: ManagedFieldsEntry[] }).managedFields = kept;
}

function removeAt(target: Record<string, unknown>, path: Path): void {
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    delete target[head];
    return;
  }
  const child = target[head];
  if (!isRecord(child)) return;
  removeAt(child, rest);
  if (Object.keys(child).length === 0) delete target[head];
}

function merge(target: Record<string, unknown>, config: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(config)) {
    const current = target[key];
    if (isRecord(value) && isRecord(current)) merge(current, value);
    else target[key] = structuredClone(value);
  }
}

/** The object after `manager` applied `config` to `current` (undefined: the apply creates it). */
export function serverSideApply(
  current: KubeObject | undefined,
  config: KubeObject,
  manager: string,
): KubeObject {
  const next: KubeObject = current
    ? structuredClone(current)
    : {
        apiVersion: config.apiVersion,
        kind: config.kind,
        metadata: { name: config.metadata.name },
      };
  const entries = managedOf(current).map((e) => ({ ...e, fieldsV1: structuredClone(e.fieldsV1) }));
  const mine = entries.find((e) => e.manager === manager && e.operation === "Apply");
  const before = fromFieldsV1(mine?.fieldsV1);
  const wanted = leaves(ownedPart(config));
  const others = entries.filter((e) => e !== mine);
  const ownedByOthers = new Set(others.flatMap((e) => [...fromFieldsV1(e.fieldsV1)]));
  const body = next as unknown as Record<string, unknown>;
  for (const path of before)
    if (!wanted.has(path) && !ownedByOthers.has(path)) removeAt(body, path.split(SEP));
  const part = ownedPart(config);
  const { metadata: meta, ...rest } = part;
  merge(body, rest);
  if (isRecord(meta)) merge(next.metadata as unknown as Record<string, unknown>, meta);
  const updated: ManagedFieldsEntry[] = others.map((e) => {
    const kept = new Set([...fromFieldsV1(e.fieldsV1)].filter((p) => !wanted.has(p)));
    return { ...e, fieldsV1: toFieldsV1(kept) };
  });
  updated.push({
    manager,
    operation: "Apply",
    apiVersion: config.apiVersion,
    fieldsType: "FieldsV1",
    fieldsV1: toFieldsV1(wanted),
  });
  setManaged(next, updated);
  return next;
}

/** `manager` takes ownership of the fields an update changed between `before` and `after`. */
export function recordUpdate(before: KubeObject, after: KubeObject, manager: string): void {
  const old = leaves(ownedPart(before));
  const oldValues = new Map([...old].map((p) => [p, JSON.stringify(valueAt(before, p))]));
  const changed = new Set(
    [...leaves(ownedPart(after))].filter(
      (p) => oldValues.get(p) !== JSON.stringify(valueAt(after, p)),
    ),
  );
  if (changed.size === 0) {
    setManaged(after, managedOf(before));
    return;
  }
  const entries = managedOf(before).map((e) => ({
    ...e,
    fieldsV1: toFieldsV1(new Set([...fromFieldsV1(e.fieldsV1)].filter((p) => !changed.has(p)))),
  }));
  const mine = entries.find((e) => e.manager === manager && e.operation === "Update");
  if (mine) mine.fieldsV1 = toFieldsV1(new Set([...fromFieldsV1(mine.fieldsV1), ...changed]));
  else
    entries.push({
      manager,
      operation: "Update",
      apiVersion: after.apiVersion,
      fieldsType: "FieldsV1",
      fieldsV1: toFieldsV1(changed),
    });
  setManaged(after, entries);
}

function valueAt(object: KubeObject, path: string): unknown {
  let node: unknown = ownedPart(object);
  for (const key of path.split(SEP)) node = isRecord(node) ? node[key] : undefined;
  return node;
}
