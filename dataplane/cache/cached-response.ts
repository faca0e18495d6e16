import type { InferenceCall } from "../core/inference-call.js";

type Json = Record<string, unknown>;

const ZERO_USAGE = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/**
 * The stored completion as this call's answer: this call's id, time and model name; usage 0
 * tokens (nothing was spent upstream; the tokens saved are in the audit record's cache details).
 */
export function hitCompletion(call: InferenceCall, stored: Json): Json {
  return {
    ...stored,
    id: `chatcmpl-${call.requestId}`,
    created: Math.floor(call.startedAt / 1000),
    model: call.route?.model.name ?? stored.model ?? call.requestedModel,
    usage: ZERO_USAGE,
  };
}

/**
 * A completion as the server-sent events an upstream would have sent: per choice a role and
 * content (and tool calls) chunk and a finish chunk, a usage chunk, then `[DONE]`.
 */
export function completionAsSse(completion: Json): string {
  const base = {
    id: completion.id,
    object: "chat.completion.chunk",
    created: completion.created,
    model: completion.model,
  };
  const event = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`;
  const choices = Array.isArray(completion.choices) ? (completion.choices as Json[]) : [];
  let out = "";
  choices.forEach((choice, i) => {
    const index = typeof choice.index === "number" ? choice.index : i;
    const message = (choice.message ?? {}) as Json;
    const delta: Json = { role: message.role ?? "assistant", content: message.content ?? "" };
    if (Array.isArray(message.tool_calls)) {
      delta.tool_calls = (message.tool_calls as Json[]).map((t, n) => ({ index: n, ...t }));
    }
    out += event({ ...base, choices: [{ index, delta, finish_reason: null }] });
    out += event({
      ...base,
      choices: [{ index, delta: {}, finish_reason: choice.finish_reason ?? "stop" }],
    });
  });
  out += event({ ...base, choices: [], usage: completion.usage ?? ZERO_USAGE });
  return `${out}data: [DONE]\n\n`;
}

/** A streamed answer's text as the completion to store (text answers only; see docs/cache.md). */
export function completionFromStream(call: InferenceCall, text: string): Json {
  return {
    id: `chatcmpl-${call.requestId}`,
    object: "chat.completion",
    created: Math.floor(call.startedAt / 1000),
    model: call.route?.model.name ?? call.requestedModel,
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
  };
}
