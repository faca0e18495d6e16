import test from "ava";
import { manualClock } from "../core/clock.js";
import { GatewayError } from "../core/errors.js";
import { memberCaller } from "../../test/support/member-caller.js";
import { newInferenceCall } from "../core/inference-call.js";
import type { CustomerBudget } from "../store/budget-repository.js";
import { limitStage } from "./limit-stage.js";
import { MemoryRateLimiter } from "./memory-rate-limiter.js";

const caller = memberCaller("cus_1", { keyId: "key_1", tier: "free" });

const budget: CustomerBudget = {
  customerId: "cus_1",
  limitUsd: null,
  period: "monthly",
  mode: "hard",
  alertThresholds: [],
  requestsPerMinute: null,
  tokensPerMinute: null,
  updatedAt: null,
};

function chat(batch: boolean) {
  const call = newInferenceCall({
    requestId: "req_1",
    endpoint: "chat.completions",
    caller,
    requestedModel: "m",
    body: { model: "m", messages: [{ role: "user", content: "hi" }], max_tokens: 1 },
    stream: false,
    startedAt: 0,
  });
  if (batch) call.batch = { batchId: "batch_1", customId: "x" };
  return call;
}

async function admitted(stage: ReturnType<typeof limitStage>, batch: boolean): Promise<boolean> {
  try {
    await stage.beforeForward?.(chat(batch));
    return true;
  } catch (err) {
    if (err instanceof GatewayError && err.code === "rate_limit_exceeded") return false;
    throw err;
  }
}

test("batch lines get only their share of the customer's limit; interactive calls keep the rest", async (t) => {
  const clock = manualClock(1_000_000);
  const stage = limitStage({
    limiter: new MemoryRateLimiter({ clock }),
    settings: { get: async () => budget },
    defaultMaxTokens: 1,
    batchShare: 0.5,
  });
  // Free tier: 20 requests a minute; batch lines may use 10 of them.
  let batchAdmitted = 0;
  while (await admitted(stage, true)) batchAdmitted++;
  t.is(batchAdmitted, 10);
  let interactive = 0;
  while (await admitted(stage, false)) interactive++;
  t.is(interactive, 10, "the other half stays for interactive calls");
  t.false(await admitted(stage, true));
});
