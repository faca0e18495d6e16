/**
 * Test double support: what the API server checks and normalises before it stores an object.
 * Built in (as on every cluster): Service names are DNS-1035 labels, quantities are stored in
 * canonical form. Optional: CRD admission (the openAPIV3Schema with defaults, and the CEL rules
 * including transition rules), from crds/*.yaml through test/support/k8s-schema-crd.ts.
 */
import { GatewayError } from "../../dataplane/core/errors.js";
import type { KubeObject, ResourceType } from "../../operator/kube/types.js";
import {
  crdForKind,
  validateCustomResource,
  withDefaults,
  type LoadedCrd,
} from "../support/k8s-schema-crd.js";
import { canonicalizeQuantities } from "./kube-apiserver-quantity.js";

/** Checks (throws a 422 GatewayError) and normalises `object` in place; old is set on updates. */
export type Admission = (resource: ResourceType, object: KubeObject, old?: KubeObject) => void;

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export const builtInAdmission: Admission = (resource, object) => {
  const name = object.metadata.name;
  if (resource.group === "" && resource.plural === "services") {
    if (name.length > 63 || !DNS1035_LABEL.test(name))
      throw new GatewayError(
        "validation_failed",
        `Service "${name}" is invalid: metadata.name: Invalid value: "${name}": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character`,
      );
  }
  if (
    (resource.group === "apps" && resource.plural === "deployments") ||
    (resource.group === "" && resource.plural === "pods")
  )
    canonicalizeQuantities(resource.kind, object as unknown as Record<string, unknown>);
};

/** CRD admission for the evident.dev kinds, plus the built-in checks for everything else. */
export function crdAdmission(crds: LoadedCrd[]): Admission {
  return (resource, object, old) => {
    builtInAdmission(resource, object);
    if (resource.group !== "evident.dev") return;
    const crd = crdForKind(crds, `${resource.group}/${resource.version}`, resource.kind);
    const candidate = {
      ...object,
      apiVersion: `${resource.group}/${resource.version}`,
      kind: resource.kind,
    };
    const errors = validateCustomResource(crd, candidate, old && { ...old, kind: resource.kind });
    if (errors.length > 0)
      throw new GatewayError(
        "validation_failed",
        `${resource.kind} "${object.metadata.name}" is invalid: ${errors.join(", ")}`,
      );
    object.spec = withDefaults(crd, candidate).spec;
  };
}
