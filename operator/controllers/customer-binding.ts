import type { KubeClient } from "../kube/kube-client.js";
import { NAMESPACES } from "../kube/resources.js";
import { isRecord } from "../kube/types.js";
import type { Controller } from "../runtime/controller.js";

/** The label on a Namespace that binds it to one Evident customer. */
export const CUSTOMER_LABEL = "evident.dev/customer-id";

/** The customer id a namespace is bound to, or undefined when it carries no binding label. */
export type CustomerBinding = (namespace: string) => Promise<string | undefined>;

export function namespaceLabelBinding(kube: KubeClient, label = CUSTOMER_LABEL): CustomerBinding {
  return async (namespace) => {
    const object = await kube.get(NAMESPACES, "", namespace);
    const value = object?.metadata.labels?.[label];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
}

/**
 * A namespace acts for one customer only: a CR whose spec.customerId is not the customer its
 * namespace is bound to (by the evident.dev/customer-id label) is refused in its status and never
 * reaches the native API. Whoever can write CRs in a namespace can therefore act only for that
 * namespace's customer, and only cluster administrators (who label namespaces) bind them.
 */
export function bindToNamespaceCustomer<Spec>(
  controller: Controller<Spec>,
  binding: CustomerBinding,
): Controller<Spec> {
  return {
    ...controller,
    async sync(context) {
      const wanted = isRecord(context.spec) ? context.spec.customerId : undefined;
      const bound = await binding(context.namespace);
      if (bound !== undefined && bound === wanted) return controller.sync(context);
      const message =
        bound === undefined
          ? `namespace ${context.namespace} is not bound to a customer: label it ${CUSTOMER_LABEL}=<customer id>`
          : `namespace ${context.namespace} is bound to customer ${bound}, not ${String(wanted)}`;
      const reason = bound === undefined ? "NamespaceNotBound" : "CustomerMismatch";
      return {
        status: {},
        conditions: [
          { type: "Synced", status: "False", reason, message },
          { type: "Ready", status: "False", reason, message },
        ],
      };
    },
  };
}
