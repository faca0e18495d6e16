import test from "ava";
import { startFakeUpstream, type FakeUpstream } from "./fakes/fake-openai-upstream.js";
import { customerKey, deployModel } from "./support/inference-fixture.js";
import { call, errorOf, startTestApp, type RunningApp } from "./support/test-app.js";
import { within } from "./support/within.js";

let gateway: RunningApp;
let main: FakeUpstream;
let classifier: FakeUpstream;

const answer = (content: string) => ({
  json: {
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content } }],
    usage: { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 },
  },
});

test.before(async () => {
  main = await startFakeUpstream();
  classifier = await startFakeUpstream({ defaultBehaviour: answer("safe") });
  gateway = await startTestApp();
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "plain", pricing: { input_per_1k: 0, output_per_1k: 0 } },
    main.url,
  );
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "paid-guard", pricing: { input_per_1k: 0.5, output_per_1k: 1.5 } },
    classifier.url,
  );
  await deployModel(
    gateway.url,
    gateway.adminKey,
    { name: "premium-guard", required_tier: "enterprise" },
    classifier.url,
  );
});
test.after.always(async () => {
  await gateway?.close();
  await main?.close();
  await classifier?.close();
});

const chat = (key: string) =>
  call(gateway.url, "POST", "/v1/chat/completions", key, {
    model: "plain",
    messages: [{ role: "user", content: "an ordinary question" }],
  });

const setChecks = (key: string, model: string, failMode: "open" | "closed") =>
  call(gateway.url, "PATCH", "/api/v1/guardrails/policy", key, {
    model_checks: [
      { name: "guard", model, check: "content_safety", timeout_ms: 2_000, fail_mode: failMode },
    ],
  });

test.serial(
  "a model check naming a model above the customer's tier never calls it (fake upstreams)",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    t.is((await setChecks(key, "premium-guard", "closed")).status, 200);
    const before = classifier.requests.length;
    const res = await chat(key);
    t.is(res.status, 400, "closed: a check that cannot run blocks");
    t.is(errorOf(res.json).code, "content_safety_block");
    t.is(classifier.requests.length, before, "the enterprise classifier was not called");
  },
);

test.serial(
  "a model check's cost is metered and shows in the audit record of the call that caused it (fake upstreams)",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    t.is((await setChecks(key, "paid-guard", "closed")).status, 200);
    const res = await chat(key);
    t.is(res.status, 200);
    const requestId = res.headers.get("x-request-id") ?? "";
    // 1000 prompt tokens at $0.5/1k + 1000 completion tokens at $1.5/1k; the main model is free.
    let record: Record<string, unknown> | undefined;
    const found = await within(10_000, async () => {
      const list = await call(
        gateway.url,
        "GET",
        `/api/v1/audit/records?request_id=${requestId}`,
        key,
      );
      record = (list.json.data as Record<string, unknown>[] | undefined)?.[0];
      return record !== undefined;
    });
    t.true(found);
    t.is(record?.cost_usd, 2);
    t.deepEqual(record?.details, {
      model_checks: [
        { model: "paid-guard", prompt_tokens: 1000, completion_tokens: 1000, cost_usd: 2 },
      ],
    });
    const status = await call(gateway.url, "GET", "/api/v1/budget/status", key);
    t.is(status.json.spend_usd, 2, "charged to the customer's budget");
  },
);

test.serial(
  "a classifier answer too large to be a verdict fails the check instead of being read whole (fake upstreams)",
  async (t) => {
    const key = await customerKey(gateway.url, gateway.adminKey, "pro");
    t.is((await setChecks(key, "paid-guard", "closed")).status, 200);
    // A valid answer saying "safe", padded past what a verdict of a few tokens can need.
    classifier.script.next({
      json: { ...answer("safe").json, padding: "x".repeat(2 * 1024 * 1024) },
    });
    const res = await chat(key);
    t.is(res.status, 400, "closed: the check failed, so the call is blocked");
    t.is(errorOf(res.json).code, "content_safety_block");
    t.is((await chat(key)).status, 200, "the next call's check answers normally");
  },
);
