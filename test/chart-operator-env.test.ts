// Contract between the chart and operator/config: the environment the chart's operator
// Deployment sets (values.yaml defaults; template actions stubbed, see
// test/support/k8s-schema-helm-stub.ts) is accepted by loadOperatorConfig and means what the
// values say. Values the kubelet fills in (Secrets, the downward API) and values the template
// computes are given sample values here.
import test from "ava";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { loadOperatorConfig } from "../operator/config/config.js";
import { stubTemplate, type Values } from "./support/k8s-schema-helm-stub.js";

const repo = join(import.meta.dirname, "..");
const chart = join(repo, "charts", "evident");
const values = parse(readFileSync(join(chart, "values.yaml"), "utf8")) as Values;
const configSource = readFileSync(join(repo, "operator", "config", "config.ts"), "utf8");

type EnvVar = {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: unknown; fieldRef?: { fieldPath: string } };
};

function chartEnv(vals: Values): EnvVar[] {
  const text = readFileSync(join(chart, "templates", "operator-deployment.yaml"), "utf8");
  const [deployment] = stubTemplate(text, vals).split(/^---$/m);
  const doc = parse(deployment ?? "", { uniqueKeys: false }) as {
    spec: { template: { spec: { containers: { env: EnvVar[] }[] } } };
  };
  // The range over operator.env leaves one stubbed entry; it carries no name of its own.
  return (doc.spec.template.spec.containers[0]?.env ?? []).filter((e) => e.name !== "STUB");
}

const SAMPLES: { [name: string]: string } = {
  EVIDENT_ADMIN_KEY: `ev_sk_${"a".repeat(32)}`,
  EVIDENT_OPERATOR_KEY: `ev_sk_${"o".repeat(32)}`,
  EVIDENT_API_URL: "http://evident-dataplane.evident.svc:8080",
  "metadata.namespace": "evident",
  "metadata.name": "evident-operator-0",
};

function asProcessEnv(env: EnvVar[]): { [name: string]: string } {
  return Object.fromEntries(
    env.map((e) => {
      const field = e.valueFrom?.fieldRef?.fieldPath;
      const sample = SAMPLES[field ?? e.name];
      const value = e.value === undefined || e.value === "STUB" ? sample : e.value;
      if (value === undefined) throw new Error(`no value for ${e.name}`);
      return [e.name, value];
    }),
  );
}

test("every variable the chart sets for the operator is one operator/config reads", (t) => {
  const names = chartEnv(values).map((e) => e.name);
  t.true(names.length >= 8);
  t.deepEqual(
    names.filter((n) => !new RegExp(`\\b${n}:`).test(configSource)),
    [],
  );
});

test("the chart's default operator environment loads and means what values.yaml says", (t) => {
  const config = loadOperatorConfig(asProcessEnv(chartEnv(values)));
  t.like(config, {
    apiUrl: SAMPLES.EVIDENT_API_URL,
    watchNamespace: undefined,
    resyncSeconds: 300,
    metricsPort: 8081,
    leaderElection: true,
    leaseName: "evident-operator",
    leaseNamespace: "evident",
    podName: "evident-operator-0",
    logLevel: "info",
    // Both branches of the apiKey.useAdminKey switch are stubbed in; the operator key wins.
    apiKey: SAMPLES.EVIDENT_OPERATOR_KEY,
    apiKeyRole: "operator",
    customerBinding: "required",
    concurrencyMetric: "evident_engine_requests_in_flight",
  });
});

test("values for one watched namespace and another port reach the operator", (t) => {
  const operator = {
    ...(values.operator as Values),
    watchNamespace: "team-a",
    port: 9100,
    resyncSeconds: 60,
  };
  const config = loadOperatorConfig(asProcessEnv(chartEnv({ ...values, operator })));
  t.like(config, { watchNamespace: "team-a", metricsPort: 9100, resyncSeconds: 60 });
});
