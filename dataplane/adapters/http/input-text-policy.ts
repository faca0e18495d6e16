import { GatewayError, type ValidationIssue } from "../../core/errors.js";
import { hasLoneSurrogate } from "../../core/storable-text.js";

/** Deepest nesting of arrays/objects accepted in any request part (OpenAI tool schemas use ~10). */
export const MAX_INPUT_DEPTH = 64;

const NUL = "\u0000";

type Location = "body" | "query" | "path";

/**
 * The input string policy, applied to every part of every request before its schema: strings and
 * object keys must be well-formed Unicode without U+0000, and nesting stays within
 * MAX_INPUT_DEPTH. A violation is a 422 whose `detail` names the field. Inference bodies follow the
 * same rule: a prompt with an unpaired surrogate or a NUL could not reach a backend (nor the audit
 * log) as the caller wrote it, and guardrails scan exactly what is forwarded (see docs/api.md).
 */
export function checkInputText(value: unknown, location: Location): void {
  const issue = findTextIssue(value, location);
  if (!issue) return;
  throw new GatewayError(
    "validation_failed",
    `request validation failed: ${issue.loc.join(".")}: ${issue.msg}`,
    { detail: [issue] },
  );
}

/** The first violation of the policy, walking iteratively (no recursion on hostile depth). */
export function findTextIssue(value: unknown, location: Location): ValidationIssue | undefined {
  const stack: { value: unknown; loc: (string | number)[] }[] = [{ value, loc: [location] }];
  while (stack.length > 0) {
    const { value: v, loc } = stack.pop() as { value: unknown; loc: (string | number)[] };
    if (typeof v === "string") {
      const problem = stringProblem(v);
      if (problem) return { loc, msg: problem, type: "string_unicode" };
      continue;
    }
    if (typeof v !== "object" || v === null) continue;
    if (loc.length - 1 >= MAX_INPUT_DEPTH) {
      return {
        loc,
        msg: `nested deeper than ${MAX_INPUT_DEPTH} levels`,
        type: "too_deep",
      };
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], loc: [...loc, i] });
      continue;
    }
    for (const [key, child] of Object.entries(v as Record<string, unknown>).reverse()) {
      const problem = stringProblem(key);
      if (problem) return { loc: [...loc, key], msg: `key ${problem}`, type: "string_unicode" };
      stack.push({ value: child, loc: [...loc, key] });
    }
  }
  return undefined;
}

function stringProblem(s: string): string | undefined {
  if (s.includes(NUL)) return "contains a NUL character (U+0000)";
  if (hasLoneSurrogate(s)) return "contains an unpaired surrogate (not valid Unicode)";
  return undefined;
}

/**
 * The model a refused call asked for, for its audit record: only when the body is an object whose
 * `model` is a clean string of at most 256 characters; otherwise "" (nothing else is kept).
 */
export function refusedModelName(body: unknown): string {
  const model = (body as { model?: unknown } | null | undefined)?.model;
  if (typeof model !== "string" || model.length > 256) return "";
  return stringProblem(model) ? "" : model;
}
