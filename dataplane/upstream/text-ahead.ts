import type { SseEvent } from "./sse-parser.js";
import { isJson } from "./stream-chunk-json.js";

/** For one chunk of a read: the text of each choice's part that follows in the same read. */
export type TextAhead = ReadonlyMap<string, string>;

const FIELDS = ["content", "refusal"] as const;

export function aheadKey(choice: number, field: (typeof FIELDS)[number]): string {
  return `${choice}:${field}`;
}

/** An event's data as JSON; undefined for `[DONE]` or for data that is not JSON. */
export function parseData(event: SseEvent): unknown {
  if (event.data === "[DONE]") return undefined;
  try {
    return JSON.parse(event.data);
  } catch {
    return undefined;
  }
}

/**
 * For each parsed chunk of one read, the content and refusal text of each of its choices that the
 * later chunks of the read carry, up to and including the chunk that finishes that choice (a
 * choice's filters end there). Undefined for a chunk with nothing ahead.
 */
export function textAhead(chunks: readonly unknown[]): (TextAhead | undefined)[] {
  const out: (TextAhead | undefined)[] = new Array<TextAhead | undefined>(chunks.length);
  if (chunks.length < 2) return out;
  const following = new Map<string, string>();
  for (let i = chunks.length - 1; i >= 0; i--) {
    const chunk = chunks[i];
    if (!isJson(chunk) || !Array.isArray(chunk.choices)) continue;
    let here: Map<string, string> | undefined;
    for (const choice of chunk.choices as unknown[]) {
      if (!isJson(choice)) continue;
      const index = typeof choice.index === "number" ? choice.index : 0;
      const delta = isJson(choice.delta) ? choice.delta : {};
      for (const field of FIELDS) {
        const key = aheadKey(index, field);
        if (choice.finish_reason != null) following.delete(key);
        const rest = following.get(key);
        if (rest !== undefined) (here ??= new Map()).set(key, rest);
        const text = delta[field];
        if (typeof text === "string" && text !== "") following.set(key, text + (rest ?? ""));
      }
    }
    out[i] = here;
  }
  return out;
}
