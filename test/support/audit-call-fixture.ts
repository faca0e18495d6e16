import { memberCaller } from "./member-caller.js";
import { newInferenceCall, type InferenceCall } from "../../dataplane/core/inference-call.js";
import type { RouteDecision, Target } from "../../dataplane/routing/routing-types.js";

const NUL = String.fromCharCode(0);

const caller = memberCaller("c_golden", { keyId: "key_golden" });

const target = (id: string) => ({ id }) as Target;

/**
 * An inference call that fills every part of its audit record: a smart route, verdicts, usage,
 * cost and every kind of details, with unicode, escapes and a lone surrogate in what it carries.
 * `plain` leaves the optional parts out (the common call: no route id, no details).
 */
export function goldenCall(plain = false): InferenceCall {
  const call = newInferenceCall({
    requestId: "req_golden",
    endpoint: "chat.completions",
    caller,
    requestedModel: "gpt-é",
    body: {
      model: "gpt-é",
      messages: [{ role: "user", content: `hi 😀 "q" \\ \n ${NUL} \ud800` }],
      temperature: 0.1,
      max_tokens: 1e21,
      seed: -0,
    },
    stream: false,
    startedAt: Date.UTC(2026, 10, 24, 12, 0, 0, 123),
  });
  const targets = [target("dep_a"), target("dep_b")];
  call.route = {
    model: {
      name: "gpt-é",
      model: { version: "3" },
      pricing: { inputPer1k: 0.001, outputPer1k: 0.002 },
    },
    targets,
    ...(plain ? {} : { routeId: "route_1", strategy: "ab", arm: "b" }),
  } as unknown as RouteDecision;
  call.target = targets[1];
  call.classification = "internal";
  call.verdicts = [
    { check: "pii", action: "redact", score: 0.97, threshold: 0.5, evidence: [] },
    { check: "rule:r1", action: "allow", score: 0, threshold: 0.1, evidence: [] },
  ];
  call.usage = { promptTokens: 12, completionTokens: 7, totalTokens: 19, source: "upstream" };
  call.outcome = "completed";
  call.status = 200;
  call.responseDigest = "ab".repeat(32);
  if (plain) return call;
  call.checkCalls = [{ model: "guard", promptTokens: 3, completionTokens: 1, costUsd: 0.00001 }];
  call.streamStop = { choice: 0, field: "content", releasedChars: 5, code: "blocked" };
  call.batch = { batchId: "batch_1", customId: "line ✓" };
  call.realtime = {
    sessionId: "rt_1",
    kind: "session",
    closed: {
      by: "client",
      code: 1000,
      reason: "bye",
      totals: { prompt: 1, completion: 2, total: 3 },
    },
  };
  call.rag = { collectionId: "col_1", purpose: "query_answer", chunkIds: ["ch_2", "ch_10"] };
  call.prompt = { slug: "greet", version: 2, arm: null, abTestId: null };
  call.cache = {
    result: "miss",
    kind: "exact",
    keyHash: "cd".repeat(32),
    embeddingRequestId: "req_e",
  };
  call.cacheEmbeddingFor = "req_parent";
  return call;
}
