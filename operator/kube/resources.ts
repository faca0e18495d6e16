import type { ResourceType } from "./types.js";

/** Every resource type the operator touches, in one place. */

export const EVIDENT_GROUP = "evident.dev";
export const EVIDENT_VERSION = "v1alpha1";
export const EVIDENT_API_VERSION = `${EVIDENT_GROUP}/${EVIDENT_VERSION}`;
export const FINALIZER = "evident.dev/cleanup";
export const MANAGED_BY = "evident-operator";
export const DEPLOYMENT_LABEL = "evident.dev/deployment";
/** The field manager of every server-side apply the operator makes. */
export const FIELD_MANAGER = "evident-operator";

function evident(kind: string, plural: string): ResourceType {
  return { group: EVIDENT_GROUP, version: EVIDENT_VERSION, plural, kind, namespaced: true };
}

export const MODELS = evident("Model", "models");
export const DEPLOYMENTS = evident("Deployment", "deployments");
export const ROUTES = evident("Route", "routes");
export const GUARDRAIL_RULES = evident("GuardrailRule", "guardrailrules");
export const LEGAL_HOLDS = evident("LegalHold", "legalholds");

export const CUSTOM_RESOURCES = [
  MODELS,
  DEPLOYMENTS,
  ROUTES,
  GUARDRAIL_RULES,
  LEGAL_HOLDS,
] as const;

export const APPS_DEPLOYMENTS: ResourceType = {
  group: "apps",
  version: "v1",
  plural: "deployments",
  kind: "Deployment",
  namespaced: true,
};
export const HORIZONTAL_POD_AUTOSCALERS: ResourceType = {
  group: "autoscaling",
  version: "v2",
  plural: "horizontalpodautoscalers",
  kind: "HorizontalPodAutoscaler",
  namespaced: true,
};
export const SERVICES: ResourceType = {
  group: "",
  version: "v1",
  plural: "services",
  kind: "Service",
  namespaced: true,
};
export const PODS: ResourceType = {
  group: "",
  version: "v1",
  plural: "pods",
  kind: "Pod",
  namespaced: true,
};
/** events.k8s.io/v1: the same events `kubectl describe` and `kubectl events` show, as plain JSON. */
export const EVENTS: ResourceType = {
  group: "events.k8s.io",
  version: "v1",
  plural: "events",
  kind: "Event",
  namespaced: true,
};
/** Read only: the operator reads the customer binding label of the namespaces it acts in. */
export const NAMESPACES: ResourceType = {
  group: "",
  version: "v1",
  plural: "namespaces",
  kind: "Namespace",
  namespaced: false,
};
export const LEASES: ResourceType = {
  group: "coordination.k8s.io",
  version: "v1",
  plural: "leases",
  kind: "Lease",
  namespaced: true,
};

export const ALL_RESOURCES: readonly ResourceType[] = [
  ...CUSTOM_RESOURCES,
  APPS_DEPLOYMENTS,
  HORIZONTAL_POD_AUTOSCALERS,
  SERVICES,
  PODS,
  EVENTS,
  LEASES,
  NAMESPACES,
];
