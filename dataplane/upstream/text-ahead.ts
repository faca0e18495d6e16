import type { SseEvent } from "./sse-parser.js";
import { indexOf, isJson } from "./stream-chunk-json.js";

/**
 * What follows one part of a chunk (a choice's content or refusal) in the same read: its text, and
 * whether the read also carries the chunk that finishes that choice (`ends`: no text of the part
 * comes after `text`).
 */
export interface PartAhead {
  text: string;
  ends: boolean;
}

/** For one chunk of a read: what follows each choice's part in the same read. */
export type TextAhead = ReadonlyMap<string, PartAhead>;

const FIELDS = ["content", "refusal"] as const;

/** What follows a part in the chunk that finishes its choice: nothing, and the part ends. */
const FINISHED: PartAhead = { text: "", ends: true };

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
 * choice's filters end there), and whether that finishing chunk is in the read (the chunk that
 * finishes it included). Undefined for a chunk with nothing ahead and no finish, and for a read of
 * one chunk. A chunk that carries the same choice twice (no real backend does) gets nothing ahead
 * for it: its text is then scanned chunk by chunk, as without a look-ahead.
 */
export function textAhead(chunks: readonly unknown[]): (TextAhead | undefined)[] {
  const out: (TextAhead | undefined)[] = new Array<TextAhead | undefined>(chunks.length);
  // A read of one event (a paced stream) has nothing ahead; its filters end at the finish.
  if (chunks.length < 2) return out;
  const following = new Map<string, PartAhead>();
  for (let i = chunks.length - 1; i >= 0; i--) {
    const chunk = chunks[i];
    if (!isJson(chunk) || !Array.isArray(chunk.choices)) continue;
    const choices = chunk.choices as unknown[];
    const repeated = choices.length > 1 ? repeatedIndexes(choices) : undefined;
    let here: Map<string, PartAhead> | undefined;
    // From the last choice back, so `following` gathers a repeated choice's texts in order.
    for (let c = choices.length - 1; c >= 0; c--) {
      const choice = choices[c];
      if (!isJson(choice)) continue;
      const index = indexOf(choice);
      const delta = isJson(choice.delta) ? choice.delta : {};
      for (const field of FIELDS) {
        const key = aheadKey(index, field);
        if (choice.finish_reason != null) following.set(key, FINISHED);
        const rest = following.get(key);
        if (rest !== undefined && !repeated?.has(index)) (here ??= new Map()).set(key, rest);
        const text = delta[field];
        if (typeof text === "string" && text !== "")
          following.set(key, { text: text + (rest?.text ?? ""), ends: rest?.ends ?? false });
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
