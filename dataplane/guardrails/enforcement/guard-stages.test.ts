import test from "ava";
import { observedStage } from "../../analytics/observed-stage.js";
import { newInferenceCall, type InferenceCall } from "../../core/inference-call.js";
import { passThroughStage, Pipeline } from "../../core/pipeline.js";
import { guardrailPolicySchema } from "../policy/policy-schema.js";
import type { GuardConfigService } from "./guard-config.js";
import { guardStages } from "./guard-stages.js";

const GUARDRAILS_OFF = {
  pii: { enabled: false },
  injection: { enabled: false },
  safety: { enabled: false },
};

/** A pipeline whose guard stages run under `policy` (the fields given; defaults for the rest). */
function pipelineUnder(policy: Record<string, unknown>): Pipeline {
  const config = { policy: guardrailPolicySchema.parse(policy), rules: [] };
  const service = { forCall: () => Promise.resolve(config) } as unknown as GuardConfigService;
  const guards = guardStages(service);
  return new Pipeline({
    limit: passThroughStage("limit"),
    guardRequest: guards.request,
    route: passThroughStage("route"),
    // Wrapped as create-app.ts wraps stages: the wrapper keeps the hook.
    guardResponse: observedStage(guards.response, {}),
    meter: passThroughStage("meter"),
    audit: passThroughStage("audit"),
  });
}

async function admitted(pipeline: Pipeline): Promise<InferenceCall> {
  const call = newInferenceCall({
    requestId: "req-1",
    endpoint: "chat.completions",
    caller: {
      key: { id: "key-1", role: "member", classificationFloor: "public" },
      customer: { id: "customer-1" },
    } as unknown as InferenceCall["caller"],
    requestedModel: "m",
    body: { model: "m", messages: [{ role: "user", content: "Hello there." }], stream: true },
    stream: true,
    startedAt: 0,
  });
  await pipeline.admit(call);
  return call;
}

test("a stream is scanned (filtered in the guardrail turn batch) only when its policy checks output", async (t) => {
  const scanned = pipelineUnder({});
  t.true(scanned.scansStream(await admitted(scanned)), "the default policy scans the answer");
  const restored = pipelineUnder({
    ...GUARDRAILS_OFF,
    pii: { enabled: false, restore_in_response: true },
  });
  t.true(restored.scansStream(await admitted(restored)), "restoring placeholders is output work");
  const off = pipelineUnder(GUARDRAILS_OFF);
  t.false(off.scansStream(await admitted(off)), "guardrails off: chunks are relayed at once");
});
