import test from "ava";
import { ConfigError, loadOperatorConfig } from "./config.js";

const KEY = "ev_sk_" + "a".repeat(32);
const base = { EVIDENT_API_URL: "http://evident.evident-system.svc:8080", EVIDENT_ADMIN_KEY: KEY };

test("defaults apply when only the API URL and admin key are set", (t) => {
  const config = loadOperatorConfig({ ...base, POD_NAME: "op-0", POD_NAMESPACE: "evident-system" });
  t.like(config, {
    watchNamespace: undefined,
    resyncSeconds: 300,
    metricsPort: 8081,
    leaseName: "evident-operator",
    leaseNamespace: "evident-system",
    podName: "op-0",
    concurrency: 4,
    leaderElection: true,
  });
});

test("the chart's PORT sets the metrics port unless METRICS_PORT is given; LEADER_ELECTION=false turns the Lease off", (t) => {
  t.is(loadOperatorConfig({ ...base, PORT: "8090" }).metricsPort, 8090);
  t.is(loadOperatorConfig({ ...base, PORT: "8090", METRICS_PORT: "9100" }).metricsPort, 9100);
  t.false(loadOperatorConfig({ ...base, LEADER_ELECTION: "false" }).leaderElection);
});

test("every variable is read", (t) => {
  const config = loadOperatorConfig({
    ...base,
    WATCH_NAMESPACE: "team-a",
    RESYNC_SECONDS: "60",
    METRICS_PORT: "9100",
    LEASE_NAME: "ev-op",
    LEASE_NAMESPACE: "ops",
    LEASE_DURATION_SECONDS: "30",
    RECONCILE_CONCURRENCY: "8",
    KUBECONFIG: "/tmp/kubeconfig",
    ENDPOINT_URL_TEMPLATE: "http://{service}.{namespace}.svc.cluster.local:{port}/v1",
  });
  t.like(config, {
    watchNamespace: "team-a",
    resyncSeconds: 60,
    metricsPort: 9100,
    leaseName: "ev-op",
    leaseNamespace: "ops",
    leaseDurationSeconds: 30,
    concurrency: 8,
    kubeconfig: "/tmp/kubeconfig",
    endpointTemplate: "http://{service}.{namespace}.svc.cluster.local:{port}/v1",
  });
});

for (const [variable, value] of [
  ["EVIDENT_API_URL", "not a url"],
  ["EVIDENT_ADMIN_KEY", "sk-123"],
  ["RESYNC_SECONDS", "soon"],
  ["METRICS_PORT", "70000"],
  ["LEASE_NAME", "Not_A_Name"],
  ["LEADER_ELECTION", "maybe"],
  ["ENDPOINT_URL_TEMPLATE", "ftp://{service}"],
] as const) {
  test(`a bad ${variable} stops start-up with an error naming it and not echoing the value`, (t) => {
    const err = t.throws(() => loadOperatorConfig({ ...base, [variable]: value }), {
      instanceOf: ConfigError,
    });
    t.is(err?.variable, variable);
    t.regex(err?.message ?? "", new RegExp(variable));
    t.false((err?.message ?? "").includes(value));
  });
}

test("a missing API key is reported as required, naming the operator key", (t) => {
  const err = t.throws(() => loadOperatorConfig({ EVIDENT_API_URL: base.EVIDENT_API_URL }), {
    instanceOf: ConfigError,
  });
  t.is(err?.variable, "EVIDENT_OPERATOR_KEY");
  t.regex(err?.message ?? "", /role operator/);
});

test("the operator key wins over the admin key; the admin key alone is accepted and flagged", (t) => {
  const operatorKey = `ev_sk_${"o".repeat(32)}`;
  const both = loadOperatorConfig({ ...base, EVIDENT_OPERATOR_KEY: operatorKey });
  t.is(both.apiKey, operatorKey);
  t.is(both.apiKeyRole, "operator");
  t.is(loadOperatorConfig(base).apiKeyRole, "admin");
  t.is(loadOperatorConfig(base).customerBinding, "required");
});
