import type { LogprobEntry } from "./stream-part.js";

/** A JSON object of a streamed chunk (the chunk, a choice, a delta, a tool call). */
export type Json = Record<string, unknown>;

export function isJson(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A choice's log-probability entries of its content or refusal, when it has some. */
export function entriesOf(
  logprobs: unknown,
  field: "content" | "refusal",
): LogprobEntry[] | undefined {
  if (!isJson(logprobs) || !Array.isArray(logprobs[field])) return undefined;
  return (logprobs[field] as unknown[]).filter(isJson);
}

/** A streamed choice's (or tool call's) `index`; 0 when it has none. */
export function indexOf(item: Json): number {
  return typeof item.index === "number" ? item.index : 0;
}
