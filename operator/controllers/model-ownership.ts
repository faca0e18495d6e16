import type { KubeClient } from "../kube/kube-client.js";
import { MODELS } from "../kube/resources.js";
import { isRecord, type KubeObject } from "../kube/types.js";

/** Every live Model CR (in the operator's scope) for one registry name@version. */
export type ModelClaimants = (name: string, version: string) => Promise<KubeObject[]>;

export function kubeModelClaimants(
  kube: KubeClient,
  namespace: string | undefined,
): ModelClaimants {
  return async (name, version) => {
    const { items } = await kube.list(MODELS, namespace);
    return items.filter((o) => {
      const spec = isRecord(o.spec) ? o.spec : {};
      return (
        spec.name === name && spec.version === version && o.metadata.deletionTimestamp === undefined
      );
    });
  };
}

/** Oldest first; the UID breaks ties, so every replica and every reconcile agrees. */
function byAge(a: KubeObject, b: KubeObject): number {
  const at = a.metadata.creationTimestamp ?? "";
  const bt = b.metadata.creationTimestamp ?? "";
  if (at !== bt) return at < bt ? -1 : 1;
  return (a.metadata.uid ?? "") < (b.metadata.uid ?? "") ? -1 : 1;
}

function modelIdOf(object: KubeObject): string | undefined {
  const id = isRecord(object.status) ? object.status.modelId : undefined;
  return typeof id === "string" ? id : undefined;
}

/**
 * Which Model CR owns name@version: the one whose status already holds the registration (the
 * oldest, should two claim it), else the oldest claimant. A second CR for the same name@version
 * (in another namespace, say) is refused in its status and never adopts or deregisters the
 * first team's model.
 */
export function modelOwner(self: KubeObject, claimants: readonly KubeObject[]): KubeObject {
  const all = [self, ...claimants.filter((o) => o.metadata.uid !== self.metadata.uid)].sort(byAge);
  return all.find((o) => modelIdOf(o) !== undefined) ?? all[0] ?? self;
}

export function describeOwner(owner: KubeObject): string {
  return `Model ${owner.metadata.namespace ?? ""}/${owner.metadata.name}`;
}
