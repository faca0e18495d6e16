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

/**
 * The first violation of the policy, in document order (an object's keys are checked before its
 * values). The walk recurses, but never deeper than MAX_INPUT_DEPTH + 1 frames (deeper nesting is
 * itself the violation), and allocates nothing unless it finds one: the path is built on the way
 * back.
 */
export function findTextIssue(value: unknown, location: Location): ValidationIssue | undefined {
  const found = issueIn(value, 0);
  if (!found) return undefined;
  return { loc: [location, ...found.path.reverse()], msg: found.msg, type: found.type };
}

interface FoundIssue {
  /** From the offending value up to the part's root (reversed at the end). */
  path: (string | number)[];
  msg: string;
  type: string;
}

function issueIn(v: unknown, depth: number): FoundIssue | undefined {
  if (typeof v === "string") {
    const problem = stringProblem(v);
    return problem ? { path: [], msg: problem, type: "string_unicode" } : undefined;
  }
  if (typeof v !== "object" || v === null) return undefined;
  if (depth >= MAX_INPUT_DEPTH) {
    return { path: [], msg: `nested deeper than ${MAX_INPUT_DEPTH} levels`, type: "too_deep" };
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = issueIn(v[i], depth + 1);
      if (found) {
        found.path.push(i);
        return found;
      }
    }
    return undefined;
  }
  const record = v as Record<string, unknown>;
  const keys = Object.keys(record);
  // Keys are checked last to first (the order this check has always reported them in).
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i] as string;
    const problem = stringProblem(key);
    if (problem) return { path: [key], msg: `key ${problem}`, type: "string_unicode" };
  }
  for (const key of keys) {
    const found = issueIn(record[key], depth + 1);
    if (found) {
      found.path.push(key);
      return found;
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
