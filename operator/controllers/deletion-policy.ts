import { isRecord, type KubeObject } from "../kube/types.js";

export type DeletionPolicy = "Retain" | "Delete";

/**
 * spec.deletionPolicy of a CR being deleted: what happens to the native object it owns. Retain
 * (the default for Model and LegalHold, whose loss is irreversible) leaves it; Delete removes it.
 * A GitOps prune, a namespace deletion or an uninstall then cannot release a hold by accident.
 */
export function deletionPolicyOf(object: KubeObject, fallback: DeletionPolicy): DeletionPolicy {
  const policy = isRecord(object.spec) ? object.spec.deletionPolicy : undefined;
  return policy === "Retain" || policy === "Delete" ? policy : fallback;
}
