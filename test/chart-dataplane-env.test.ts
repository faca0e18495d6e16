// Contract between the chart and dataplane/config: the environment the chart's data plane
// Deployment sets (its own entries plus the "evident.secretEnv" helper; template actions
// stubbed, see test/support/k8s-schema-helm-stub.ts) is accepted by loadConfig and puts the
// servers on the ports the Service and probes use. Secret values are samples here.
import test from "ava";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { loadConfig } from "../dataplane/config/config.js";
import { stubTemplate, type Values } from "./support/k8s-schema-helm-stub.js";

const repo = join(import.meta.dirname, "..");
const templates = join(repo, "charts", "evident", "templates");
const values = parse(
  readFileSync(join(repo, "charts", "evident", "values.yaml"), "utf8"),
) as Values;
const configSource = readFileSync(join(repo, "dataplane", "config", "config.ts"), "utf8");

type EnvVar = {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef: { name: string; key: string } };
};

function chartEnv(): EnvVar[] {
  const text = readFileSync(join(templates, "dataplane-deployment.yaml"), "utf8");
  const doc = parse(stubTemplate(text, values), { uniqueKeys: false }) as {
    spec: { template: { spec: { containers: { env: ({ [k: string]: unknown } & EnvVar)[] }[] } } };
  };
  const own = (doc.spec.template.spec.containers[0]?.env ?? []).filter(
    (e) => typeof e.name === "string" && e.name !== "STUB",
  );
  const helpers = readFileSync(join(templates, "_helpers.tpl"), "utf8");
  const body =
    /define "evident.secretEnv" -\}\}\n([\s\S]*?)\{\{- end \}\}/.exec(helpers)?.[1] ?? "";
  return [...own, ...(parse(stubTemplate(body, values)) as EnvVar[])];
}

const SECRETS: { [key: string]: string } = {
  EVIDENT_ADMIN_KEY: `ev_sk_${"b".repeat(40)}`,
  DATABASE_URL: "postgres://evident:secret@postgres:5432/evident",
  REDIS_URL: "redis://redis:6379",
};

test("every variable the chart sets for the data plane is one dataplane/config reads", (t) => {
  const names = chartEnv().map((e) => e.name);
  t.deepEqual(names, [
    "PORT",
    "GRPC_PORT",
    "LOG_LEVEL",
    "SHUTDOWN_DRAIN_DELAY_MS",
    "EVIDENT_ADMIN_KEY",
    "DATABASE_URL",
    "REDIS_URL",
  ]);
  t.deepEqual(
    names.filter((n) => !new RegExp(`\\b${n}:`).test(configSource)),
    [],
  );
});

test("the chart's data plane environment loads: servers on 8080/9090, a 5 s readiness drain, Postgres and Redis from the Secret", (t) => {
  const env = Object.fromEntries(
    chartEnv().map((e) => [e.name, e.value ?? SECRETS[e.valueFrom?.secretKeyRef.key ?? ""]]),
  );
  t.like(loadConfig(env), {
    PORT: 8080,
    GRPC_PORT: 9090,
    LOG_LEVEL: "info",
    SHUTDOWN_DRAIN_DELAY_MS: 5000,
    DATABASE_URL: SECRETS.DATABASE_URL,
    REDIS_URL: SECRETS.REDIS_URL,
    EVIDENT_ADMIN_KEY: SECRETS.EVIDENT_ADMIN_KEY,
  });
});
