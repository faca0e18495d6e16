import test from "ava";
import { memberCaller } from "../../test/support/member-caller.js";
import { newInferenceCall, type InferenceCall } from "../core/inference-call.js";
import type { RouteDecision } from "../routing/routing-types.js";
import { cacheKeyOf, policyVersionOf } from "./cache-key.js";

/** A routed chat call: `version` is the registered version of the model that serves it. */
function chat(
  body: Record<string, unknown>,
  opts: {
    customer?: string;
    version?: string;
    classification?: InferenceCall["classification"];
  } = {},
): InferenceCall {
  const call = newInferenceCall({
    requestId: "req_1",
    endpoint: "chat.completions",
    caller: memberCaller(opts.customer ?? "cus_a"),
    requestedModel: "m",
    body: { model: "m", messages: [{ role: "user", content: "hi" }], ...body },
    stream: body.stream === true,
    startedAt: 0,
  });
  call.route = {
    model: { name: "m", model: { version: opts.version ?? "1" } },
    targets: [],
  } as unknown as RouteDecision;
  call.classification = opts.classification ?? "public";
  return call;
}

const policy = policyVersionOf({ pii: { enabled: true } }, []);
const keyOf = (call: InferenceCall, p = policy) => cacheKeyOf(call, p).keyHash;

test("identical requests share a key whatever the field order, stream flag or null parameters", (t) => {
  const base = keyOf(chat({ temperature: 0.2, top_p: 1 }));
  t.is(keyOf(chat({ top_p: 1, temperature: 0.2 })), base);
  t.is(keyOf(chat({ temperature: 0.2, top_p: 1, stream: true, user: "u1" })), base);
  t.is(keyOf(chat({ temperature: 0.2, top_p: 1, seed: null })), base);
});

test("no stale or foreign answers: customer, model version, policy, parameters and messages change the key", (t) => {
  const base = keyOf(chat({}));
  t.not(keyOf(chat({}, { customer: "cus_b" })), base, "never across customers");
  t.not(keyOf(chat({}, { version: "2" })), base, "a new model version");
  t.not(
    keyOf(chat({}), policyVersionOf({ pii: { enabled: false } }, [])),
    base,
    "a changed policy",
  );
  t.not(
    keyOf(
      chat({}),
      policyVersionOf({ pii: { enabled: true } }, [
        { check: "regex", definition: { pattern: "x" } },
      ]),
    ),
    base,
    "a new guardrail rule",
  );
  t.not(keyOf(chat({ temperature: 0.9 })), base);
  t.not(keyOf(chat({ messages: [{ role: "user", content: "hi!" }] })), base);
});

test("confidential and restricted answers are only served to calls of the same classification", (t) => {
  const open = keyOf(chat({}));
  t.is(keyOf(chat({}, { classification: "internal" })), open);
  const confidential = keyOf(chat({}, { classification: "confidential" }));
  t.not(confidential, open);
  t.not(keyOf(chat({}, { classification: "restricted" })), confidential);
});
