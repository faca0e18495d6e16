import { GatewayError } from "../../core/errors.js";
import { tierRank } from "../../core/identity.js";
import type { InferenceCall } from "../../core/inference-call.js";
import { estimatedCost } from "../../limits/meter-stage.js";
import {
  completionText,
  countTextTokens,
  estimatedUsage,
  usageFromUpstream,
} from "../../upstream/usage.js";
import type { RoutingTableHolder } from "../../routing/routing-loader.js";
import type { TargetHealth } from "../../routing/target-health.js";
import { forwardWithRetries } from "../../upstream/forward-with-retries.js";
import type { UpstreamClient } from "../../upstream/upstream-client.js";
import { readUpstreamBody } from "../../upstream/upstream-failure.js";
import type { ModelCheck } from "../policy/policy-schema.js";

const INSTRUCTION =
  "You are a safety classifier for an AI gateway. Judge the user content below. " +
  "Answer with exactly one word, safe or unsafe, optionally followed by the violated category.";
const MAX_CONTENT = 32_000;

export interface ModelCheckDeps {
  routing: RoutingTableHolder;
  health: TargetHealth;
  upstream: UpstreamClient;
}

/**
 * Asks each configured classifier model, through the gateway's own routing, about the request's
 * texts. "unsafe..." blocks with the check's code; a failure or timeout follows the check's fail
 * mode (closed: block; open: let through, recorded as an allow verdict with a detector_error label).
 */
export async function runModelChecks(
  deps: ModelCheckDeps,
  call: InferenceCall,
  checks: readonly ModelCheck[],
  texts: readonly string[],
): Promise<void> {
  if (checks.length === 0 || texts.length === 0) return;
  const content = texts.join("\n\n").slice(0, MAX_CONTENT);
  await Promise.all(checks.map((check) => runOne(deps, call, check, content)));
}

async function runOne(
  deps: ModelCheckDeps,
  call: InferenceCall,
  check: ModelCheck,
  content: string,
): Promise<void> {
  const code =
    check.check === "prompt_injection" ? "prompt_injection_detected" : "content_safety_block";
  const name = `model:${check.name}`;
  let verdict: "safe" | "unsafe";
  try {
    verdict = await classify(deps, call, check, content);
  } catch {
    call.verdicts.push({
      check: name,
      action: check.fail_mode === "closed" ? "block" : "allow",
      score: 0,
      threshold: 0.5,
      evidence: [{ label: "detector_error", start: 0, end: 0 }],
    });
    if (check.fail_mode === "closed") {
      throw new GatewayError(
        code,
        `model check ${check.name} failed or timed out; blocking (fail_mode closed)`,
      );
    }
    return;
  }
  const unsafe = verdict === "unsafe";
  call.verdicts.push({
    check: name,
    action: unsafe ? "block" : "allow",
    score: unsafe ? 1 : 0,
    threshold: 0.5,
    evidence: [],
  });
  if (unsafe) {
    throw new GatewayError(
      code,
      `model check ${check.name} (${check.model}) judged the request unsafe`,
    );
  }
}

/** A classifier's answer is a few tokens; a body past this fails the check instead of being kept. */
const MAX_CLASSIFIER_ANSWER = 1024 * 1024;

async function classify(
  deps: ModelCheckDeps,
  call: InferenceCall,
  check: ModelCheck,
  content: string,
): Promise<"safe" | "unsafe"> {
  const model = deps.routing.current.resolve(check.model, call.caller.customer.id);
  if (!model || model.targets.length === 0) throw new Error("classifier model is not routable");
  // The same tier rule as any call: a classifier above the customer's tier is never called.
  if (tierRank(model.requiredTier) > tierRank(call.caller.customer.tier)) {
    throw new Error("classifier model is above the customer's tier");
  }
  const signal = AbortSignal.timeout(check.timeout_ms);
  const { response } = await forwardWithRetries(
    deps.upstream,
    deps.health,
    deps.routing.current.decide(model, deps.health),
    (target) => ({
      path: "/chat/completions",
      method: "POST",
      hops: call.hops,
      headers: { "content-type": "application/json", "x-request-id": `${call.requestId}.check` },
      body: JSON.stringify({
        model: target.upstreamModel,
        messages: [
          { role: "system", content: INSTRUCTION },
          { role: "user", content },
        ],
        max_tokens: 10,
        temperature: 0,
      }),
    }),
    { retries: 0, signal },
  );
  const text = await readUpstreamBody(response.body, MAX_CLASSIFIER_ANSWER);
  if (response.status >= 400) throw new Error(`classifier answered ${response.status}`);
  const json = JSON.parse(text) as Record<string, unknown> & {
    choices?: { message?: { content?: unknown } }[];
  };
  // Metered like any call, to the customer, with the call that caused it.
  const usage =
    usageFromUpstream(json) ??
    estimatedUsage(countTextTokens(INSTRUCTION + content), countTextTokens(completionText(json)));
  call.checkCalls.push({
    model: model.name,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    costUsd:
      Math.round(estimatedCost(model.pricing, usage.promptTokens, usage.completionTokens) * 1e8) /
      1e8,
  });
  const answer = String(json.choices?.[0]?.message?.content ?? "")
    .trim()
    .toLowerCase();
  if (answer.startsWith("unsafe")) return "unsafe";
  if (answer.startsWith("safe")) return "safe";
  throw new Error("classifier answer is neither safe nor unsafe");
}
