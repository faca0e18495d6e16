// Least privilege in the chart (render-free: template actions stubbed, both branches of every
// `if` kept, see test/support/k8s-schema-helm-stub.ts): NetworkPolicies, the operator's key and
// its read-only namespace access.
import test from "ava";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import { chartValues } from "./support/chart-envoy.js";
import { lookup, stubTemplate } from "./support/k8s-schema-helm-stub.js";

const templates = join(import.meta.dirname, "..", "charts", "evident", "templates");

type Doc = { kind: string; metadata: { name: string }; [key: string]: unknown };

function docs(file: string): Doc[] {
  const text = readFileSync(join(templates, file), "utf8");
  return parseAllDocuments(stubTemplate(text, chartValues), { uniqueKeys: false })
    .map((d) => d.toJS() as Doc | null)
    .filter((d): d is Doc => d !== null);
}

type Rule = { ports: { port: string }[]; from?: Record<string, unknown>[] };

test("NetworkPolicy: the data plane's gRPC port admits Envoy only; its REST port Envoy, the operator and httpFrom", (t) => {
  const [dataplane] = docs("networkpolicy.yaml");
  t.is(lookup(chartValues, "networkPolicy.enabled"), true, "on by default");
  const rules = lookup(dataplane, "spec.ingress") as Rule[];
  const grpc = rules.filter((r) => r.ports.some((p) => p.port === "grpc"));
  t.is(grpc.length, 1);
  t.is(grpc[0]?.from?.length, 1, "one peer");
  t.truthy(
    lookup(grpc[0]?.from?.[0], "podSelector.matchLabels"),
    "a pod selector (the Envoy pods)",
  );
  const http = rules.filter((r) => r.ports.some((p) => p.port === "http"));
  t.is(http.length, 1);
  t.true((http[0]?.from?.length ?? 0) >= 2, "Envoy and the operator");
  t.deepEqual(lookup(dataplane, "spec.policyTypes"), ["Ingress"]);
});

test("the operator calls the data plane with an operator-role key from its own Secret, the admin key only when asked", (t) => {
  const [deployment] = docs("operator-deployment.yaml");
  const env = lookup(deployment, "spec.template.spec.containers") as {
    env: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  }[];
  const vars = env[0]?.env ?? [];
  const operatorKey = vars.find((v) => v.name === "EVIDENT_OPERATOR_KEY");
  t.deepEqual(operatorKey?.valueFrom?.secretKeyRef, {
    name: "evident-operator",
    key: "EVIDENT_OPERATOR_KEY",
  });
  t.is(lookup(chartValues, "operator.apiKey.useAdminKey"), false);
  t.is(vars.find((v) => v.name === "CUSTOMER_BINDING") !== undefined, true);
});

test("RBAC: the operator's cluster-scoped grant beyond its (Cluster)Role is read-only namespace access", (t) => {
  const rbac = docs("operator-rbac.yaml");
  const clusterRoles = rbac.filter((d) => d.kind === "ClusterRole");
  t.is(clusterRoles.length, 1);
  t.deepEqual(lookup(clusterRoles[0], "rules"), [
    // resourceNames: [operator.watchNamespace] in namespaced mode (empty in values.yaml).
    { apiGroups: [""], resources: ["namespaces"], verbs: ["get"], resourceNames: [] },
  ]);
});
