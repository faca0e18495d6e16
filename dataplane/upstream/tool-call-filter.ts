import { indexOf, isJson, type Json } from "./stream-chunk-json.js";
import type { PartOutput } from "./stream-part.js";

/**
 * Passes each streamed tool call's `arguments` through its own output filter (`filterArguments`,
 * by the call's index). A call left with no arguments, no id and no name is dropped; `refused`
 * stops at a filter's refusal.
 */
export function filterToolCalls(
  calls: Json[],
  filterArguments: (tool: number, args: string) => PartOutput,
  refused: () => boolean,
): { kept: Json[]; changed: boolean } {
  const kept: Json[] = [];
  let changed = false;
  for (const call of calls) {
    const fn = isJson(call.function) ? call.function : undefined;
    const args = fn?.arguments;
    if (fn === undefined || typeof args !== "string") {
      kept.push(call);
      continue;
    }
    const tool = indexOf(call);
    const out = filterArguments(tool, args);
    if (refused()) return { kept: [], changed: true };
    if (out.text === args) {
      kept.push(call);
      continue;
    }
    changed = true;
    fn.arguments = out.text;
    const identifies = Object.keys(call).some((k) => k !== "index" && k !== "function");
    const named = Object.keys(fn).some((k) => k !== "arguments");
    if (out.text !== "" || identifies || named) kept.push(call);
  }
  return { kept, changed };
}
