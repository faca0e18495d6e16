import test from "ava";
import { memberCaller } from "../../../test/support/member-caller.js";
import { newInferenceCall } from "../../core/inference-call.js";
import { guardrailPolicySchema } from "../policy/policy-schema.js";
import type { GuardConfig, GuardConfigService } from "./guard-config.js";
import { guardStages } from "./guard-stages.js";

/** Every detector off and no rules: the request guard has nothing to scan. */
const nothingToScan: GuardConfig = {
  policy: guardrailPolicySchema.parse({
    pii: { enabled: false },
    injection: { enabled: false },
    safety: { enabled: false },
  }),
  rules: [],
};

// Only forCall is used by the request guard; the rest of the service is not reached.
const service = {
  forCall: async () => nothingToScan,
} as unknown as GuardConfigService;

function chat(id: string) {
  return newInferenceCall({
    requestId: id,
    endpoint: "chat.completions",
    caller: memberCaller("cus_1", { keyId: "key_1" }),
    requestedModel: "m",
    body: { model: "m", messages: [{ role: "user", content: "hello there" }] },
    stream: false,
    startedAt: 0,
  });
}

test("with nothing to scan, the calls read in one turn still pass the request guard together, after that turn", async (t) => {
  const { request } = guardStages(service);
  const passed: string[] = [];
  const calls = ["a", "b", "c"].map((id) =>
    request.beforeForward?.(chat(id)).then(() => passed.push(id)),
  );
  // However many microtask turns go by, no call is through before the turn's check phase...
  for (let i = 0; i < 50; i++) await Promise.resolve();
  t.deepEqual(passed, []);
  // ...and then all of them are, in the order they came.
  await new Promise((resolve) => setImmediate(resolve));
  await Promise.all(calls);
  t.deepEqual(passed, ["a", "b", "c"]);
});

test("with nothing to scan, a call passes the request guard as public and keeps its body", async (t) => {
  const { request } = guardStages(service);
  const call = chat("a");
  const body = call.body;
  await request.beforeForward?.(call);
  t.is(call.classification, "public");
  t.is(call.body, body);
  t.deepEqual(call.verdicts, []);
});

test("with nothing checked on output, the answers read in one turn pass the answer guard together, after that turn, unchanged", async (t) => {
  const { request, response } = guardStages(service);
  const calls = [chat("a"), chat("b")];
  for (const call of calls) await request.beforeForward?.(call);
  const answer = { choices: [{ index: 0, message: { role: "assistant", content: "hi" } }] };
  const passed: string[] = [];
  const guarded = calls.map((call) =>
    response.transformResponse?.(call, answer).then((body) => {
      passed.push(call.requestId);
      return body;
    }),
  );
  for (let i = 0; i < 50; i++) await Promise.resolve();
  t.deepEqual(passed, []);
  await new Promise((resolve) => setImmediate(resolve));
  const bodies = await Promise.all(guarded);
  t.deepEqual(passed, ["a", "b"]);
  for (const body of bodies) t.is(body, answer);
});
