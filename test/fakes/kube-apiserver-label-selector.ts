import type { KubeObject } from "../../operator/kube/types.js";

/** Equality selectors only ("a=b,c=d"), which is all the operator uses. */
export function matchesSelector(object: KubeObject, selector: string | undefined): boolean {
  if (!selector) return true;
  const labels = object.metadata.labels ?? {};
  return selector.split(",").every((term) => {
    const [key, value] = term.split("=");
    return key !== undefined && labels[key.trim()] === value?.trim();
  });
}
