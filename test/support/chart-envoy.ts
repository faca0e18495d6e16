/**
 * Test support: the Envoy configuration the chart generates, from charts/evident/templates/
 * envoy-configmap.yaml with the template actions stubbed (k8s-schema-helm-stub.ts), values.yaml
 * merged with `overrides` the way Helm merges maps.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { stubTemplate, type Values } from "./k8s-schema-helm-stub.js";

const chart = join(import.meta.dirname, "..", "..", "charts", "evident");

export const chartValues = parse(readFileSync(join(chart, "values.yaml"), "utf8")) as Values;

function isMap(value: unknown): value is Values {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Helm's merge: maps merge, anything else replaces, null deletes. */
export function mergeValues(base: Values, overrides: Values): Values {
  const out: Values = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === null) delete out[key];
    else if (isMap(value) && isMap(out[key])) out[key] = mergeValues(out[key], value);
    else out[key] = value;
  }
  return out;
}

export interface EnvoyBootstrap {
  static_resources: { listeners: Values[]; clusters: Values[] };
  [key: string]: unknown;
}

/** The envoy.yaml of the chart's ConfigMap, parsed. */
export function chartEnvoyConfig(overrides: Values = {}): EnvoyBootstrap {
  const values = mergeValues(chartValues, mergeValues({ envoy: { enabled: true } }, overrides));
  const text = readFileSync(join(chart, "templates", "envoy-configmap.yaml"), "utf8");
  const [configMap] = parseAllDocuments(stubTemplate(text, values)).map(
    (d) => d.toJS() as { data: { "envoy.yaml": string } } | null,
  );
  if (!configMap) throw new Error("envoy-configmap.yaml rendered nothing");
  return parse(configMap.data["envoy.yaml"]) as EnvoyBootstrap;
}

/** The HttpConnectionManager of the first listener. */
export function connectionManager(config: EnvoyBootstrap): Values {
  const listener = config.static_resources.listeners[0] as {
    filter_chains: { filters: { typed_config: Values }[] }[];
  };
  const hcm = listener.filter_chains[0]?.filters[0]?.typed_config;
  if (!hcm) throw new Error("no http_connection_manager");
  return hcm;
}

export function routesOf(config: EnvoyBootstrap): Values[] {
  const hosts = (
    connectionManager(config).route_config as { virtual_hosts: { routes: Values[] }[] }
  ).virtual_hosts;
  return hosts[0]?.routes ?? [];
}

export function httpFilters(config: EnvoyBootstrap): { name: string; typed_config: Values }[] {
  return connectionManager(config).http_filters as { name: string; typed_config: Values }[];
}

export function clusterNamed(config: EnvoyBootstrap, name: unknown): Values | undefined {
  return config.static_resources.clusters.find((c) => c.name === name);
}
