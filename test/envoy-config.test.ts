import { readFileSync } from "node:fs";
import test from "ava";
import { parse } from "yaml";
import { bootstrapProblems } from "./support/envoy-proto-check.js";

/**
 * docs/envoy/envoy.yaml cannot be run here (no Envoy). This checks it against Envoy's own protos
 * (test/support/envoy-proto-check.ts) and that the processing modes are the ones the adapters need.
 */
const config = parse(readFileSync("docs/envoy/envoy.yaml", "utf8")) as Record<string, unknown>;

test("docs/envoy/envoy.yaml uses only fields and types of Envoy's API (protos of @grpc/grpc-js-xds)", (t) => {
  t.deepEqual(bootstrapProblems(config), []);
});

test("docs/envoy/envoy.yaml wires ext_authz (headers only) before ext_proc with the modes the adapters need", (t) => {
  const text = JSON.stringify(config);
  const hcm = /"http_filters":(\[.*?\])\}\}\]\}\]/.exec(text);
  t.truthy(hcm);
  const filters = JSON.parse(hcm?.[1] ?? "[]") as {
    name: string;
    typed_config: Record<string, unknown>;
  }[];
  t.deepEqual(
    filters.map((f) => f.name),
    [
      "envoy.filters.http.ext_authz",
      "envoy.filters.http.ext_proc",
      "envoy.filters.http.dynamic_forward_proxy",
      "envoy.filters.http.router",
    ],
  );
  const authz = filters[0]?.typed_config ?? {};
  t.is(authz.with_request_body, undefined, "ext_authz sends headers only");
  t.is(authz.failure_mode_allow, false);
  const proc = filters[1]?.typed_config ?? {};
  t.deepEqual(proc.processing_mode, {
    request_header_mode: "SEND",
    request_body_mode: "BUFFERED",
    request_trailer_mode: "SKIP",
    response_header_mode: "SEND",
    response_body_mode: "STREAMED",
    response_trailer_mode: "SKIP",
  });
  t.is(proc.failure_mode_allow, false);
});
