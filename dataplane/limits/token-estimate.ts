import type { InferenceCall } from "../core/inference-call.js";
import { countTextTokens, promptText } from "../upstream/usage.js";
import { CallState } from "../core/call-state.js";

/** What a call is expected to use before it is forwarded: its reservation. */
export interface TokenEstimate {
  promptTokens: number;
  /** The most completion tokens the call may produce: max_tokens (or the default) x n. */
  completionTokens: number;
  total: number;
}

const estimates = new CallState<TokenEstimate>("estimates");

function positiveInt(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * Prompt tokens counted with the tokenizer plus the completion allowance (chat only:
 * `max_completion_tokens`, else `max_tokens`, else `defaultMaxTokens`, times `n`). Counted once
 * per call and shared by the limit and meter stages.
 */
export function estimateTokens(call: InferenceCall, defaultMaxTokens: number): TokenEstimate {
  const known = estimates.get(call);
  if (known) return known;
  const promptTokens = countTextTokens(promptText(call.body));
  let completionTokens = 0;
  // A realtime session reserves nothing: each of its responses reserves (and is settled) itself.
  if (call.endpoint === "chat.completions" || call.realtime?.kind === "response") {
    const max =
      positiveInt(call.body.max_completion_tokens) ??
      positiveInt(call.body.max_tokens) ??
      defaultMaxTokens;
    completionTokens = max * (positiveInt(call.body.n) ?? 1);
  }
  const estimate = { promptTokens, completionTokens, total: promptTokens + completionTokens };
  estimates.set(call, estimate);
  return estimate;
}
