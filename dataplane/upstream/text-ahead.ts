import type { SseEvent } from "./sse-parser.js";
import { indexOf, isJson } from "./stream-chunk-json.js";

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
 * choice's filters end there). Undefined for a chunk with nothing ahead. A chunk that carries the
 * same choice twice (no real backend does) gets nothing ahead for it: its text is then scanned
 * chunk by chunk, as without a look-ahead.
 */
export function textAhead(chunks: readonly unknown[]): (TextAhead | undefined)[] {
  const out: (TextAhead | undefined)[] = new Array<TextAhead | undefined>(chunks.length);
  if (chunks.length < 2) return out;
  const following = new Map<string, string>();
  for (let i = chunks.length - 1; i >= 0; i--) {
    const chunk = chunks[i];
    if (!isJson(chunk) || !Array.isArray(chunk.choices)) continue;
    const choices = chunk.choices as unknown[];
    const repeated = choices.length > 1 ? repeatedIndexes(choices) : undefined;
    let here: Map<string, string> | undefined;
    // From the last choice back, so `following` gathers a repeated choice's texts in order.
    for (let c = choices.length - 1; c >= 0; c--) {
      const choice = choices[c];
      if (!isJson(choice)) continue;
      const index = indexOf(choice);
      const delta = isJson(choice.delta) ? choice.delta : {};
      for (const field of FIELDS) {
        const key = aheadKey(index, field);
        if (choice.finish_reason != null) following.delete(key);
        const rest = following.get(key);
        if (rest !== undefined && !repeated?.has(index)) (here ??= new Map()).set(key, rest);
        const text = delta[field];
        if (typeof text === "string" && text !== "") following.set(key, text + (rest ?? ""));
      }
    }
    out[i] = here;
  }
  return out;
}

/** The choice indexes a chunk carries more than once; undefined when none is repeated. */
function repeatedIndexes(choices: readonly unknown[]): Set<number> | undefined {
  const seen = new Set<number>();
  let twice: Set<number> | undefined;
  for (const choice of choices) {
    if (!isJson(choice)) continue;
    const index = indexOf(choice);
    if (seen.has(index)) (twice ??= new Set()).add(index);
    seen.add(index);
  }
  return twice;
}
