// Render-free checks of charts/evident/templates (Helm cannot be installed here, so nothing is
// rendered for real): every .Values path a template reads exists in values.yaml and in
// values.schema.json, every value is used, every template is YAML once its template actions
// are stubbed (test/support/k8s-schema-helm-stub.ts), and the stubbed manifests have the shape
// the design needs: ports, probes, Secrets, RBAC, the Envoy filter chain.
import test from "ava";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { ALL_RESOURCES } from "../operator/kube/resources.js";
import {
  lookup,
  referencedValues,
  stubTemplate,
  type Values,
} from "./support/k8s-schema-helm-stub.js";

const repo = join(import.meta.dirname, "..");
const chart = join(repo, "charts", "evident");
const templatesDir = join(chart, "templates");
const values = parse(readFileSync(join(chart, "values.yaml"), "utf8")) as Values;
const schema = JSON.parse(readFileSync(join(chart, "values.schema.json"), "utf8")) as Values;
const templates = readdirSync(templatesDir)
  .sort()
  .map((file) => ({ file, text: readFileSync(join(templatesDir, file), "utf8") }));
const manifests = templates.filter((t) => t.file.endsWith(".yaml"));

/** Read by a template but deliberately absent from values.yaml (documented in values.yaml). */
const OPTIONAL = new Set(["dataplane.podDisruptionBudget.maxUnavailable"]);

function inSchema(path: string): boolean {
  let node: Values | undefined = schema;
  for (const key of path.split(".")) {
    node = (node?.properties as Values | undefined)?.[key] as Values | undefined;
    if (node === undefined) return false;
  }
  return true;
}

type Doc = { kind: string; metadata: { name: string }; [key: string]: unknown };

function docs(file: string, vals: Values = values): Doc[] {
  const tpl = templates.find((t) => t.file === file);
  if (!tpl) throw new Error(`no template ${file}`);
  const parsed = parseAllDocuments(stubTemplate(tpl.text, vals), { uniqueKeys: false });
  for (const d of parsed)
    if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]?.message}`);
  return parsed.map((d) => d.toJS() as Doc).filter((d) => d !== null);
}

const referenced = [...new Set(templates.flatMap((t) => referencedValues(t.text)))].sort();

test("every .Values path read by a template exists in values.yaml and in the schema", (t) => {
  t.true(referenced.length > 60, `only ${referenced.length} paths found`);
  const missing = referenced.filter((p) => lookup(values, p) === undefined && !OPTIONAL.has(p));
  t.deepEqual(missing, [], "missing from values.yaml");
  t.deepEqual(
    referenced.filter((p) => !inSchema(p)),
    [],
    "missing from values.schema.json",
  );
});

test("every value in values.yaml is read by some template", (t) => {
  const leaves: string[] = [];
  const walk = (v: unknown, path: string): void => {
    if (typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length > 0) {
      for (const [k, c] of Object.entries(v)) walk(c, path ? `${path}.${k}` : k);
    } else leaves.push(path);
  };
  walk(values, "");
  const used = (leaf: string) => referenced.some((r) => leaf === r || leaf.startsWith(`${r}.`));
  t.deepEqual(
    leaves.filter((l) => !used(l)),
    [],
  );
});

for (const { file } of manifests) {
  test(`${file} is YAML with every template action stubbed`, (t) => {
    const parsed = docs(file);
    t.true(parsed.length > 0);
    if (file === "crds.yaml") return; // one toYaml of files/crds/*, checked below
    for (const doc of parsed) {
      t.truthy(doc.kind, `${file}: a document without kind`);
      t.truthy(doc.metadata.name, `${file}: ${doc.kind} without a name`);
    }
  });
}

test("the chart's CRDs are the repository's crds/*.yaml (run: cp crds/*.yaml charts/evident/files/crds/)", (t) => {
  const ours = readdirSync(join(repo, "crds"))
    .filter((f) => f.endsWith(".yaml"))
    .sort();
  t.deepEqual(readdirSync(join(chart, "files", "crds")).sort(), ours);
  for (const f of ours) {
    t.is(
      readFileSync(join(chart, "files", "crds", f), "utf8"),
      readFileSync(join(repo, "crds", f), "utf8"),
      f,
    );
  }
});

type Container = {
  name: string;
  ports: { name: string; containerPort: number }[];
  env: { name: string; value?: string; valueFrom?: unknown }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
};

function container(file: string): Container {
  const d = docs(file).find((x) => x.kind === "Deployment") as unknown as {
    spec: { template: { spec: { containers: Container[] } } };
  };
  const c = d.spec.template.spec.containers[0];
  if (!c) throw new Error(`${file}: no container`);
  return c;
}

test("data plane: http 8080 and grpc 9090, /healthz and /readyz probes, Secrets for key and URLs", (t) => {
  const c = container("dataplane-deployment.yaml");
  t.deepEqual(
    c.ports.map((p) => [p.name, p.containerPort]),
    [
      ["http", 8080],
      ["grpc", 9090],
    ],
  );
  t.deepEqual(c.livenessProbe.httpGet, { path: "/healthz", port: "http" });
  t.deepEqual(c.readinessProbe.httpGet, { path: "/readyz", port: "http" });
  t.regex(
    templates.find((x) => x.file === "dataplane-deployment.yaml")?.text ?? "",
    /include "evident.secretEnv"/,
  );
  const helpers = templates.find((x) => x.file === "_helpers.tpl")?.text ?? "";
  const body =
    /define "evident.secretEnv" -\}\}\n([\s\S]*?)\{\{- end \}\}/.exec(helpers)?.[1] ?? "";
  const env = parse(stubTemplate(body, values)) as {
    name: string;
    valueFrom: { secretKeyRef: { name: string; key: string } };
  }[];
  t.deepEqual(
    env.map((e) => [e.name, e.valueFrom.secretKeyRef.name, e.valueFrom.secretKeyRef.key]),
    [
      ["EVIDENT_ADMIN_KEY", "evident", "EVIDENT_ADMIN_KEY"],
      ["DATABASE_URL", "evident", "DATABASE_URL"],
      ["REDIS_URL", "evident", "REDIS_URL"],
    ],
  );
  const [svc] = docs("dataplane-service.yaml") as unknown as {
    spec: { ports: { name: string; port: number }[] };
  }[];
  t.deepEqual(
    svc?.spec.ports.map((p) => [p.name, p.port]),
    [
      ["http", 8080],
      ["grpc", 9090],
    ],
  );
  t.deepEqual(
    docs("dataplane-hpa.yaml").map((d) => d.kind),
    ["HorizontalPodAutoscaler"],
  );
  t.deepEqual(
    docs("dataplane-pdb.yaml").map((d) => d.kind),
    ["PodDisruptionBudget"],
  );
});

test("operator RBAC grants exactly the resources operator/kube/resources.ts lists", (t) => {
  type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
  // Kinds are stubbed (ClusterRole or Role by watchNamespace): the roles are the docs with rules.
  const roles = docs("operator-rbac.yaml").filter((d) => "rules" in d) as unknown as {
    rules: Rule[];
  }[];
  const rules = roles.flatMap((r) => r.rules);
  const granted = new Set(
    rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.map((res) => `${g}/${res}`))),
  );
  const needed = ALL_RESOURCES.map((r) => `${r.group}/${r.plural}`);
  t.deepEqual(
    [...granted].filter((g) => !g.includes("/", g.indexOf("/") + 1)).sort(),
    [...needed].sort(),
  );
  for (const r of ALL_RESOURCES.filter((x) => x.group === "evident.dev")) {
    t.true(granted.has(`evident.dev/${r.plural}/status`), `${r.plural}/status`);
    t.true(granted.has(`evident.dev/${r.plural}/finalizers`), `${r.plural}/finalizers`);
  }
  const verbs = (res: string) =>
    rules.filter((r) => r.resources.includes(res)).flatMap((r) => r.verbs);
  t.deepEqual(verbs("pods"), ["get", "list", "watch"], "pods are read-only");
  t.false(
    rules.some((r) => r.resources.includes("secrets")),
    "no access to Secrets",
  );
  t.false(
    rules.some((r) => r.verbs.includes("*") || r.resources.includes("*")),
    "no wildcards",
  );
});

type Filter = { name: string; typed_config: Values };

function envoyConfig(vals: Values): {
  filters: Filter[];
  clusters: { name: string }[];
  routes: Values[];
} {
  const [cm] = docs("envoy-configmap.yaml", vals) as unknown as {
    data: { "envoy.yaml": string };
  }[];
  const config = parse(cm?.data["envoy.yaml"] ?? "") as {
    static_resources: { listeners: Values[]; clusters: { name: string }[] };
  };
  const hcm = lookup(config.static_resources.listeners[0], "filter_chains") as {
    filters: { typed_config: Values }[];
  }[];
  const typed = hcm[0]?.filters[0]?.typed_config ?? {};
  const routes = lookup(typed, "route_config.virtual_hosts") as { routes: Values[] }[];
  return {
    filters: typed.http_filters as Filter[],
    clusters: config.static_resources.clusters,
    routes: routes[0]?.routes ?? [],
  };
}

test("envoy: ext_authz headers only, ext_proc buffered request / streamed response, fail closed by default", (t) => {
  const { filters, clusters, routes } = envoyConfig(values);
  t.deepEqual(
    filters.map((f) => f.name),
    [
      "envoy.filters.http.ext_authz",
      "envoy.filters.http.ext_proc",
      "envoy.filters.http.dynamic_forward_proxy",
      "envoy.filters.http.router",
    ],
  );
  const [authz, proc] = filters;
  t.is(authz?.typed_config.with_request_body, undefined, "ext_authz sends headers only");
  t.is(authz?.typed_config.failure_mode_allow, false);
  t.is(
    lookup(authz?.typed_config, "grpc_service.envoy_grpc.cluster_name"),
    "evident_dataplane_grpc",
  );
  t.is(proc?.typed_config.failure_mode_allow, false);
  t.like(proc?.typed_config.processing_mode as Values, {
    request_header_mode: "SEND",
    request_body_mode: "BUFFERED",
    response_header_mode: "SEND",
    response_body_mode: "STREAMED",
  });
  t.is(
    lookup(proc?.typed_config, "grpc_service.envoy_grpc.cluster_name"),
    "evident_dataplane_grpc",
  );
  const grpc = clusters.find((c) => c.name === "evident_dataplane_grpc");
  t.truthy(lookup(grpc, "typed_extension_protocol_options"), "the gRPC cluster speaks HTTP/2");
  t.true(clusters.some((c) => c.name === "evident_dataplane_http"));
  // Routing to what ext_proc names is tested in chart-envoy-routing.test.ts.
  t.true(routes.some((r) => lookup(r, "route.cluster") === "evident_upstream_plain"));
  t.is(
    envoyConfig({ ...values, envoy: { ...(values.envoy as Values), failureModeAllow: true } })
      .filters[1]?.typed_config.failure_mode_allow,
    true,
  );
});
