import { countTokens } from "gpt-tokenizer";
import type { Usage } from "../core/inference-call.js";

/** The backend's own usage report, when it gave one. */
export function usageFromUpstream(body: Record<string, unknown>): Usage | undefined {
  const u = body.usage as Record<string, unknown> | undefined | null;
  if (!u || typeof u !== "object") return undefined;
  const prompt = Number(u.prompt_tokens ?? u.input_tokens ?? 0);
  const completion = Number(u.completion_tokens ?? u.output_tokens ?? 0);
  if (!Number.isFinite(prompt) || !Number.isFinite(completion)) return undefined;
  const total = Number(u.total_tokens ?? prompt + completion);
  return {
    promptTokens: prompt,
    completionTokens: completion,
    totalTokens: total,
    source: "upstream",
  };
}

/** Tokens in a text, counted with the o200k tokenizer (an estimate for other models' tokenizers). */
export function countTextTokens(text: string): number {
  return text.length === 0 ? 0 : countTokens(text);
}

/** Every string a request sends as prompt: messages' text parts, embeddings input, tool arguments. */
export function promptText(body: Record<string, unknown>): string {
  const parts: string[] = [];
  const visit = (v: unknown, depth: number) => {
    if (depth > 8) return;
    if (typeof v === "string") parts.push(v);
    else if (Array.isArray(v)) for (const x of v) visit(x, depth + 1);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      for (const key of ["content", "text", "arguments", "input", "name"])
        if (key in o) visit(o[key], depth + 1);
      if ("function" in o) visit(o.function, depth + 1);
      if ("tool_calls" in o) visit(o.tool_calls, depth + 1);
    }
  };
  visit(body.messages, 0);
  visit(body.input, 0);
  visit(body.prompt, 0);
  return parts.join("\n");
}

/** Completion text of a non-streamed chat response. */
export function completionText(body: Record<string, unknown>): string {
  const choices = Array.isArray(body.choices) ? body.choices : [];
  return choices
    .map((c) => {
      const msg = (c as { message?: { content?: unknown } }).message;
      return typeof msg?.content === "string" ? msg.content : "";
    })
    .join("\n");
}

export function estimatedUsage(promptTokens: number, completionTokens: number): Usage {
  return {
    promptTokens,
    completionTokens,
    totalTokens: promptTokens + completionTokens,
    source: "estimated",
  };
}
