// The Envoy configuration the chart generates (no Envoy here): checked against Envoy's protos, and
// the routing decision itself played end to end: the data plane's ext_proc (through the Envoy test
// double) names a target, and the chart's route table must send that request to a cluster it
// defines, with the host the operator's Service answers on.
import test from "ava";
import { startGrpcServer, type GrpcServer } from "../dataplane/adapters/grpc/start-grpc.js";
import { deploymentSpec, modelSpec } from "../operator/crd/specs.js";
import {
  buildService,
  endpointUrl,
  workloadName,
} from "../operator/controllers/deployment-workload.js";
import { ExtProcSession, headerValue, type HeaderList } from "./fakes/envoy-client.js";
import { connectEnvoy, type EnvoyClients } from "./fakes/envoy-round-trip.js";
import {
  chartEnvoyConfig,
  chartValues,
  clusterNamed,
  connectionManager,
  httpFilters,
  routesOf,
} from "./support/chart-envoy.js";
import { bootstrapProblems } from "./support/envoy-proto-check.js";
import { selectRoute } from "./support/envoy-route-match.js";
import { lookup } from "./support/k8s-schema-helm-stub.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { startTestApp, type RunningApp } from "./support/test-app.js";

let gateway: RunningApp;
let grpc: GrpcServer;
let envoy: EnvoyClients;
let key: string;

const ENGINE_URL = endpointUrl("llama", "ml", 8000);

test.before(async () => {
  gateway = await startTestApp();
  grpc = (await startGrpcServer(gateway.app.ctx, 0, "127.0.0.1"))!;
  envoy = connectEnvoy(`127.0.0.1:${grpc.port}`);
  await deployModel(gateway.url, gateway.adminKey, { name: "engine-model" }, ENGINE_URL);
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "hosted-model" },
    "https://api.example.com/openai/v1",
  );
  key = await customerKey(gateway.url, gateway.adminKey, "pro");
});
test.after.always(async () => {
  envoy?.close();
  await grpc?.close();
  await gateway?.close();
});

/** The request headers Envoy forwards after ext_proc answered the buffered request body. */
async function routedHeaders(
  model: string,
  extra: Record<string, string> = {},
): Promise<Record<string, string>> {
  const session = new ExtProcSession(envoy.externalProcessor, {
    method: "POST",
    path: "/v1/chat/completions",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      ...extra,
    },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hello" }] }),
  });
  await session.requestHeaders({ endOfStream: false });
  await session.requestBody(
    JSON.stringify({ model, messages: [{ role: "user", content: "hello" }] }),
    {
      endOfStream: true,
    },
  );
  await session.reset();
  return Object.fromEntries(session.upstream.headers as HeaderList);
}

const config = chartEnvoyConfig();

function dnsCacheOfFilter(): unknown {
  const filter = httpFilters(config).find(
    (f) => f.name === "envoy.filters.http.dynamic_forward_proxy",
  );
  return lookup(filter?.typed_config, "dns_cache_config");
}

test("chart envoy.yaml (default values, and with a private CA) uses only fields and types of Envoy's protos", (t) => {
  t.deepEqual(bootstrapProblems(config), []);
  t.deepEqual(
    bootstrapProblems(
      chartEnvoyConfig({
        envoy: { upstream: { caConfigMap: "corp-ca", caFile: "/etc/evident/upstream-ca/ca.crt" } },
      }),
    ),
    [],
  );
});

test("routing decision (Envoy test double + chart routes): an operator-provisioned engine resolves to the plaintext forward-proxy cluster and the engine Service's host", async (t) => {
  const headers = await routedHeaders("engine-model");
  t.is(headers["x-evident-upstream"], ENGINE_URL);
  const route = selectRoute(routesOf(config), { path: headers[":path"] ?? "", headers });
  const cluster = clusterNamed(config, lookup(route, "route.cluster"));
  t.is(cluster?.name, "evident_upstream_plain");
  t.is(lookup(cluster, "cluster_type.name"), "envoy.clusters.dynamic_forward_proxy");
  t.is(cluster?.transport_socket, undefined, "http:// targets are plaintext");
  // The forward proxy resolves the host named by the per-route host rewrite header, through the
  // same DNS cache as the filter (Envoy requires them to match).
  t.deepEqual(lookup(cluster, "cluster_type.typed_config.dns_cache_config"), dnsCacheOfFilter());
  const perRoute = (route?.typed_per_filter_config as Record<string, Record<string, unknown>>)[
    "envoy.filters.http.dynamic_forward_proxy"
  ];
  const hostHeader = String(perRoute?.host_rewrite_header);
  const service = buildService({
    crName: "llama",
    namespace: "ml",
    uid: "u",
    spec: deploymentSpec.parse({ modelRef: "m", port: 8000 }),
    model: modelSpec.parse({ name: "m", version: "1", engine: "vllm" }),
  });
  const port = (service.spec as { ports: { port: number }[] }).ports[0]?.port;
  t.is(headers[hostHeader], `${workloadName("llama")}.ml.svc:${port}`);
  t.is(service.metadata.name, workloadName("llama"));
  t.is(headers[":path"], "/v1/chat/completions");
});

test("routing decision (Envoy test double + chart routes): an https target goes through the TLS cluster, which validates the certificate against the CA bundle", async (t) => {
  const headers = await routedHeaders("hosted-model");
  const route = selectRoute(routesOf(config), { path: headers[":path"] ?? "", headers });
  const cluster = clusterNamed(config, lookup(route, "route.cluster"));
  t.is(cluster?.name, "evident_upstream_tls");
  t.is(headers["x-evident-upstream-host"], "api.example.com");
  t.is(headers[":path"], "/openai/v1/chat/completions");
  t.is(
    lookup(
      cluster,
      "transport_socket.typed_config.common_tls_context.validation_context.trusted_ca.filename",
    ),
    lookup(chartValues, "envoy.upstream.caFile"),
  );
  const options = (cluster?.typed_extension_protocol_options as Record<string, unknown>)[
    "envoy.extensions.upstreams.http.v3.HttpProtocolOptions"
  ];
  t.like(lookup(options, "upstream_http_protocol_options") as object, {
    auto_sni: true,
    auto_san_validation: true,
  });
  const privateCa = chartEnvoyConfig({
    envoy: { upstream: { caConfigMap: "corp-ca", caFile: "/etc/evident/upstream-ca/ca.crt" } },
  });
  t.is(
    lookup(
      clusterNamed(privateCa, "evident_upstream_tls"),
      "transport_socket.typed_config.common_tls_context.validation_context.trusted_ca.filename",
    ),
    "/etc/evident/upstream-ca/ca.crt",
  );
});

test("routing decision (Envoy test double + chart routes): a caller cannot pick the upstream", async (t) => {
  const early = connectionManager(config).early_header_mutation_extensions as {
    typed_config: { mutations: { remove: string }[] };
  }[];
  const removed = early.flatMap((e) => e.typed_config.mutations.map((m) => m.remove));
  t.deepEqual(removed.sort(), ["x-evident-upstream", "x-evident-upstream-host"]);
  // ext_proc also replaces them with its own decision.
  const headers = await routedHeaders("engine-model", {
    "x-evident-upstream": "http://169.254.169.254/latest",
    "x-evident-upstream-host": "169.254.169.254",
  });
  t.is(headers["x-evident-upstream"], ENGINE_URL);
  t.is(headerValue(Object.entries(headers), "x-evident-upstream-host"), "llama-engine.ml.svc:8000");
});

test("chart envoy routes: unrouted inference goes to the REST facade, audio through ext_authz only, probes skip both", (t) => {
  const routes = routesOf(config);
  const pick = (path: string) => selectRoute(routes, { path, headers: {} });
  t.is(lookup(pick("/v1/chat/completions"), "route.cluster"), "evident_dataplane_http");
  const audio = pick("/v1/audio/transcriptions");
  t.is(lookup(audio, "route.cluster"), "evident_dataplane_http");
  const perFilter = (audio?.typed_per_filter_config ?? {}) as unknown as Record<
    string,
    { disabled?: boolean }
  >;
  t.true(perFilter["envoy.filters.http.ext_proc"]?.disabled);
  t.false("envoy.filters.http.ext_authz" in perFilter, "ext_authz checks audio calls");
  const probe = (pick("/readyz")?.typed_per_filter_config ?? {}) as Record<
    string,
    { disabled?: boolean }
  >;
  t.true(probe["envoy.filters.http.ext_authz"]?.disabled);
});

test("chart envoy: large bodies fit, an ext_authz outage is a 503, the data plane is health-checked and outliers ejected", (t) => {
  const listener = config.static_resources.listeners[0];
  t.is(listener?.per_connection_buffer_limit_bytes, 4194304);
  const authz = httpFilters(config).find((f) => f.name === "envoy.filters.http.ext_authz");
  t.deepEqual(authz?.typed_config.status_on_error, { code: "ServiceUnavailable" });
  t.deepEqual(
    httpFilters(config).map((f) => f.name),
    [
      "envoy.filters.http.ext_authz",
      "envoy.filters.http.ext_proc",
      "envoy.filters.http.dynamic_forward_proxy",
      "envoy.filters.http.router",
    ],
  );
  for (const name of ["evident_dataplane_grpc", "evident_dataplane_http"]) {
    const cluster = clusterNamed(config, name);
    t.is(lookup(cluster, "outlier_detection.consecutive_5xx"), 5, name);
    const checks = cluster?.health_checks as { http_health_check: { path: string } }[];
    t.is(checks[0]?.http_health_check.path, "/readyz", name);
  }
  t.is(
    chartEnvoyConfig({ envoy: { maxRequestBytes: 16777216 } }).static_resources.listeners[0]
      ?.per_connection_buffer_limit_bytes,
    16777216,
  );
});
