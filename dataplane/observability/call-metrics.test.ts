import test from "ava";
import { Registry } from "prom-client";
import {
  createPromClientCallMetrics,
  createPromClientHttpMetrics,
} from "../../test/support/prom-client-call-metrics.js";
import { seededRandom } from "../../test/support/seeded-random.js";
import { RequestLabels } from "../adapters/http/request-labels.js";
import type { Caller } from "../core/identity.js";
import { GatewayError } from "../core/errors.js";
import {
  newInferenceCall,
  type CallOutcome,
  type Endpoint,
  type InferenceCall,
} from "../core/inference-call.js";
import type { VerdictAction } from "../guardrails/verdict.js";
import type { RouteDecision } from "../routing/routing-types.js";
import { createMetrics } from "./metrics.js";

/** Every metric the gateway records per call or per request (not the process's own metrics). */
const RECORDED = [
  "evident_http_requests_total",
  "evident_http_request_duration_seconds",
  "evident_inference_requests_total",
  "evident_inference_duration_seconds",
  "evident_tokens_total",
  "evident_cost_usd_total",
  "evident_guardrail_verdicts_total",
  "evident_limit_refusals_total",
  "evident_upstream_requests_total",
  "evident_audit_lag_seconds",
  "evident_inference_in_flight",
];

const caller = { key: { customerId: "cus_a" }, customer: { id: "cus_a" } } as unknown as Caller;

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

/** A finished call with what the metrics read drawn at random (some never routed, some failed). */
function finishedCall(random: () => number, n: number): InferenceCall {
  const endpoints: Endpoint[] = ["chat.completions", "embeddings", "audio.transcriptions"];
  const call = newInferenceCall({
    requestId: `req_${n}`,
    endpoint: pick(random, endpoints),
    caller,
    requestedModel: "asked",
    body: {},
    stream: false,
    startedAt: 0,
  });
  if (random() < 0.85) {
    const name = pick(random, ["llama", "mistral", "qwen", "gpt-x"]);
    call.route = { model: { name }, targets: [] } as unknown as RouteDecision;
  }
  const outcomes: (CallOutcome | undefined)[] = [
    "completed",
    "completed",
    "served_from_cache",
    "blocked",
    "rate_limited",
    "upstream_error",
    "stream_failed",
    undefined,
  ];
  call.outcome = pick(random, outcomes);
  call.status = pick(random, [200, 200, 400, 402, 429, 502, undefined]);
  if (random() < 0.7) {
    const promptTokens = Math.floor(random() * 2000);
    const completionTokens = Math.floor(random() * 500);
    const total = promptTokens + completionTokens;
    call.usage = { promptTokens, completionTokens, totalTokens: total, source: "upstream" };
  }
  if (random() < 0.6) call.costUsd = random() < 0.1 ? 0 : random() * 0.003;
  const actions: VerdictAction[] = ["allow", "block", "redact", "flag"];
  const checks = ["pii", "prompt_injection", "content_safety", "rule:r1", "rule:r2"];
  for (let i = Math.floor(random() * 4); i > 0; i--)
    call.verdicts.push({
      check: pick(random, checks),
      action: pick(random, actions),
      score: 0.5,
      threshold: 0.5,
      evidence: [],
    });
  const codes = ["rate_limit_exceeded", "budget_exceeded", "model_not_found"] as const;
  if (random() < 0.2) call.error = new GatewayError(pick(random, codes), "refused");
  if (random() < 0.8)
    call.target = {
      id: pick(random, ["dep_1", "dep_2", "be_9"]),
      kind: pick(random, ["deployment", "backend"] as const),
      baseUrl: "http://u/v1",
      upstreamModel: "m",
      credential: undefined,
    };
  return call;
}

async function exposition(registry: Registry): Promise<string> {
  const parts: string[] = [];
  for (const name of RECORDED) parts.push(await registry.getSingleMetricAsString(name));
  return parts.join("\n");
}

test("the gateway's per-call metrics read as prom-client's own inc/observe/set made them, during and after traffic", async (t) => {
  const gateway = createMetrics();
  const reference = new Registry();
  const calls = createPromClientCallMetrics(reference);
  const http = createPromClientHttpMetrics(reference);
  const requestLabels = new RequestLabels(gateway.httpRequests, gateway.httpDuration);
  let inFlight = 0;
  gateway.calls.countInFlight(() => inFlight);
  const random = seededRandom(13);
  const routes = ["/v1/chat/completions", "/v1/embeddings", "unmatched", "/api/v1/models/:id"];

  t.is(await exposition(gateway.registry), await exposition(reference), "before any call");
  for (let round = 0; round < 8; round++) {
    for (let i = 0; i < 250; i++) {
      if (random() < 0.55) {
        inFlight++;
        calls.inFlight.set(inFlight);
      }
      if (inFlight > 0 && random() < 0.5) {
        inFlight--;
        calls.inFlight.set(inFlight);
      }
      const call = finishedCall(random, round * 1000 + i);
      const latencyMs = random() < 0.05 ? 200_000 : random() * random() * 3000;
      gateway.calls.observe(call, latencyMs);
      calls.observe(call, latencyMs);
      const lag = random() * random() * 0.2;
      gateway.calls.auditLag(lag);
      calls.auditLag(lag);
      const route = pick(random, routes);
      const method = pick(random, ["GET", "POST"]);
      const status = pick(random, [200, 201, 404, 429, 500]);
      const seconds = random() * random() * 0.5;
      const series = requestLabels.of(route, method, status);
      series.requests.inc();
      series.duration.observe(seconds);
      http.record(route, method, status, seconds);
      t.deepEqual(series.labels, { route, method, status: String(status) });
    }
    t.is(await exposition(gateway.registry), await exposition(reference), `round ${round}`);
  }
  const text = await exposition(gateway.registry);
  t.regex(text, /evident_inference_requests_total\{endpoint="[a-z.]+",model="\(unrouted\)"/);
  t.regex(text, /evident_guardrail_verdicts_total\{check="rule",action="block"\} [1-9]/);
  t.regex(text, /evident_limit_refusals_total\{code="budget_exceeded"\} [1-9]/);
  t.regex(text, /evident_inference_duration_seconds_bucket\{le="\+Inf",endpoint=/);
});

test("the in-flight gauge reads 0 until the analytics wiring gives it a source", async (t) => {
  const gateway = createMetrics();
  t.regex(
    await gateway.registry.getSingleMetricAsString("evident_inference_in_flight"),
    /\nevident_inference_in_flight 0$/,
  );
  gateway.calls.countInFlight(() => 3);
  t.regex(
    await gateway.registry.getSingleMetricAsString("evident_inference_in_flight"),
    /\nevident_inference_in_flight 3$/,
  );
});
