import { GatewayError } from "../../core/errors.js";
import { classificationRank, type ClassificationLevel } from "../../core/identity.js";
import type { InferenceCall } from "../../core/inference-call.js";
import type { PipelineStage } from "../../core/pipeline.js";
import { guardrailTurn, type TurnBatch } from "../../core/turn-batch.js";
import { createPlaceholderMap, restorePlaceholders, type PlaceholderMap } from "../pii/redact.js";
import { evaluateInput, evaluateOutput, type GuardrailEvaluation } from "../policy/evaluate.js";
import type { GuardConfig, GuardConfigService } from "./guard-config.js";
import { runModelChecks, type ModelCheckDeps } from "./model-checks.js";
import { requestTexts, responseTexts } from "./request-texts.js";
import { joinWords, redactWords, transcriptionWords } from "./transcription-words.js";
import { streamGuard } from "./stream-guard.js";
import { CallState } from "../../core/call-state.js";

/** What the request guard leaves for the response guard of the same call. */
interface CallGuardState {
  config: GuardConfig;
  placeholders: PlaceholderMap;
}

function refuse(e: GuardrailEvaluation): void {
  if (e.decision.kind === "block") throw new GatewayError(e.decision.code, e.decision.message);
}

function higher(a: ClassificationLevel, b: ClassificationLevel): ClassificationLevel {
  return classificationRank(a) >= classificationRank(b) ? a : b;
}

/**
 * Guards the request: every text of the body through the customer's policy (per-key override
 * applied) and rules. A block refuses the call; redactions rewrite a copy of the body (the
 * original stays for digests); the classification is the higher of declared and detected, and
 * below the key's floor the call is refused.
 */
export function guardStages(
  service: GuardConfigService,
  models?: ModelCheckDeps,
): { request: PipelineStage; response: PipelineStage } {
  // What the request guard leaves for the response guard of the same call.
  const states = new CallState<CallGuardState>("states");
  // The scans of every call that arrived in one event-loop turn run back to back (turn-batch.ts).
  const scans = guardrailTurn;
  return {
    request: requestGuardStage(service, states, scans, models),
    response: responseGuardStage(states, scans),
  };
}

function requestGuardStage(
  service: GuardConfigService,
  states: CallState<CallGuardState>,
  scans: TurnBatch,
  models?: ModelCheckDeps,
): PipelineStage {
  return {
    name: "guard_request",
    async beforeForward(call: InferenceCall) {
      const config = await service.forCall(call.caller.customer.id, call.caller.key.id);
      const placeholders = createPlaceholderMap();
      states.set(call, { config, placeholders });
      // Through the turn's batch even with nothing to scan: the calls that arrived in one turn
      // then go on to the rest of their admission and their upstream writes back to back, which
      // cost a JSON call's event loop about a tenth less than each call's whole admission in turn
      // (streamed calls: no change measured; docs/benchmarks.md, "Issue 13, seventeenth pass").
      // At concurrency 1 the wait is the rest of the call's own turn.
      const detected = await scans.run(() => guardRequestTexts(call, config, placeholders));
      // Classifier models see the request as the model will (after redaction).
      if (models && config.policy.model_checks.length > 0) {
        const texts = requestTexts(call.body).map((s) => s.text);
        await runModelChecks(models, call, config.policy.model_checks, texts);
      }
      call.classification = higher(call.declaredClassification ?? "public", detected);
      const floor = call.caller.key.classificationFloor;
      if (classificationRank(call.classification) < classificationRank(floor)) {
        throw new GatewayError(
          "classification_mismatch",
          `request classified ${call.classification}, below this key's minimum classification ${floor}`,
        );
      }
    },
  };
}

/**
 * Guards the response: a non-streamed answer is evaluated whole (content, refusal, tool-call
 * arguments); a streamed one part by part through stream-guard.ts, so a value split over chunks
 * is still caught. With restore_in_response,
 * placeholders from the request are put back after the output was scanned.
 */
function responseGuardStage(states: CallState<CallGuardState>, scans: TurnBatch): PipelineStage {
  return {
    name: "guard_response",
    async transformResponse(call, body) {
      const state = states.get(call);
      if (!state) return body;
      // Through the batch even when nothing checks the answer, as on the request side: the
      // calls whose answers came in one turn then meter, audit and reply back to back.
      return scans.run(() => guardResponseTexts(call, state, body));
    },
    openStreamFilter(call, part) {
      const state = states.get(call);
      // Nothing to check on output: relay every chunk as it comes, holding nothing back.
      if (!state || !checksOutput(state.config)) return undefined;
      return streamGuard(call, state.config, state.placeholders, part);
    },
  };
}

/**
 * Every text of the request through the policy and rules: a block throws, redactions rewrite a
 * copy of the body (the original stays for digests). Returns the highest classification detected.
 */
function guardRequestTexts(
  call: InferenceCall,
  config: GuardConfig,
  placeholders: PlaceholderMap,
): ClassificationLevel {
  let detected: ClassificationLevel = "public";
  // Texts are read from the body as it came; only a redaction copies it (copy on write).
  const rewritten = new Map<number, string>();
  requestTexts(call.body).forEach((slot, i) => {
    const e = evaluateInput(config.policy, config.rules, slot.text, { placeholders });
    call.verdicts.push(...e.verdicts);
    detected = higher(detected, e.detectedClassification);
    refuse(e);
    if (e.decision.kind === "redact") rewritten.set(i, e.decision.text);
  });
  if (rewritten.size > 0) call.body = withTexts(call.body, requestTexts, rewritten);
  return detected;
}

/** Every text of a whole (not streamed) answer through the output policy; the body to send. */
function guardResponseTexts(
  call: InferenceCall,
  state: CallGuardState,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const rewritten = new Map<number, string>();
  responseTexts(body).forEach((slot, i) => {
    const e = evaluateOutput(state.config.policy, state.config.rules, slot.text, {
      placeholders: state.placeholders,
    });
    call.verdicts.push(...e.verdicts);
    refuse(e);
    let text = e.decision.kind === "redact" ? e.decision.text : slot.text;
    if (state.config.policy.pii.restore_in_response)
      text = restorePlaceholders(text, state.placeholders);
    if (text !== slot.text) rewritten.set(i, text);
  });
  // The upstream's body is returned as it is unless a text changed (copy on write).
  const out = rewritten.size > 0 ? withTexts(body, responseTexts, rewritten) : body;
  return guardWords(call, state, out);
}

/** A verbose_json transcription's words[], guarded as one text (transcription-words.ts). */
function guardWords(
  call: InferenceCall,
  state: CallGuardState,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const words = transcriptionWords(body);
  if (words === undefined) return body;
  const joined = joinWords(words);
  const e = evaluateOutput(state.config.policy, state.config.rules, joined.text, {
    placeholders: state.placeholders,
  });
  call.verdicts.push(...e.verdicts);
  refuse(e);
  let redacted =
    e.decision.kind === "redact" ? redactWords(words, joined, e.decision.placeholders) : words;
  if (state.config.policy.pii.restore_in_response)
    redacted = redacted.map((w) => ({
      ...w,
      word: restorePlaceholders(w.word, state.placeholders),
    }));
  const changed =
    redacted.length !== words.length || redacted.some((w, i) => w.word !== words[i]?.word);
  return changed ? { ...body, words: redacted } : body;
}

/** A copy of `body` with the slots numbered in `texts` rewritten; `body` itself is not changed. */
function withTexts(
  body: Record<string, unknown>,
  slotsOf: (body: Record<string, unknown>) => { set(value: string): void }[],
  texts: ReadonlyMap<number, string>,
): Record<string, unknown> {
  const copy = structuredClone(body);
  slotsOf(copy).forEach((slot, i) => {
    const text = texts.get(i);
    if (text !== undefined) slot.set(text);
  });
  return copy;
}

function checksOutput({ policy, rules }: GuardConfig): boolean {
  return (
    policy.pii.enabled ||
    policy.safety.enabled ||
    policy.pii.restore_in_response ||
    rules.some((r) => r.appliesTo("output"))
  );
}
