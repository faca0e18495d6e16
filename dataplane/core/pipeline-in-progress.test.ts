import test from "ava";
import { GatewayError } from "./errors.js";
import type { InferenceCall } from "./inference-call.js";
import { passThroughStage, Pipeline, type PipelineStage } from "./pipeline.js";

const call = (id: string): InferenceCall =>
  ({ requestId: id, caller: { key: { role: "member" } } }) as unknown as InferenceCall;

function pipeline(overrides: { limit?: PipelineStage; meter?: PipelineStage } = {}): Pipeline {
  return new Pipeline({
    limit: overrides.limit ?? passThroughStage("limit"),
    guardRequest: passThroughStage("guard_request"),
    route: passThroughStage("route"),
    guardResponse: passThroughStage("guard_response"),
    meter: overrides.meter ?? passThroughStage("meter"),
    audit: passThroughStage("audit"),
  });
}

test("calls in progress count each admitted call once, until its finish", async (t) => {
  const p = pipeline();
  const [a, b] = [call("a"), call("b")];
  t.is(p.callsInProgress, 0);
  await p.admit(a);
  await p.admit(a); // a retry admits the same call again
  t.is(p.callsInProgress, 1);
  await p.admit(b);
  t.is(p.callsInProgress, 2);
  await p.finish(a);
  await p.finish(a);
  t.is(p.callsInProgress, 1);
  await p.finish(call("never-admitted"));
  t.is(p.callsInProgress, 1);
  await p.finish(b);
  t.is(p.callsInProgress, 0);
});

test("a refused call counts until it is finished, and a failing finish still ends it", async (t) => {
  const refuse: PipelineStage = {
    name: "limit",
    beforeForward: () => Promise.reject(new GatewayError("rate_limit_exceeded", "slow down")),
  };
  const failMeter: PipelineStage = {
    name: "meter",
    afterCall: () => Promise.reject(new Error("meter down")),
  };
  const p = pipeline({ limit: refuse, meter: failMeter });
  const c = call("refused");
  await t.throwsAsync(p.admit(c), { instanceOf: GatewayError });
  t.is(p.callsInProgress, 1);
  await t.throwsAsync(p.finish(c));
  t.is(p.callsInProgress, 0);
});
