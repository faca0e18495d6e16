import { GatewayError } from "../core/errors.js";
import type { TemplateMessage } from "./prompt-types.js";

/**
 * `{{name}}` or `{{ name }}`: the only template syntax. There are no expressions, filters, loops or
 * code: a placeholder is replaced by the variable's value, once (a value that itself contains
 * `{{...}}` is not expanded again). Any other `{{` text stays as it is.
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}/g;

/** Largest rendered prompt (all messages), in characters. */
export const MAX_RENDERED_CHARS = 1_000_000;

export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export type VariableValue = string | number | boolean;

/** The variable names used by the messages, in order of first use. */
export function placeholdersOf(messages: readonly TemplateMessage[]): string[] {
  const seen = new Set<string>();
  for (const m of messages)
    for (const match of m.content.matchAll(PLACEHOLDER)) seen.add(match[1] as string);
  return [...seen];
}

/** A version's messages must use only declared variables: 422 naming the first undeclared one. */
export function assertDeclared(messages: readonly TemplateMessage[], declared: readonly string[]) {
  const known = new Set(declared);
  const undeclared = placeholdersOf(messages).filter((n) => !known.has(n));
  if (undeclared.length > 0) {
    throw variableError(
      `the template uses undeclared variable${undeclared.length > 1 ? "s" : ""} ` +
        `${undeclared.map((n) => `'${n}'`).join(", ")}; declare ${undeclared.length > 1 ? "them" : "it"} in variables`,
      ["body", "variables"],
    );
  }
}

/**
 * Renders the messages with the given values. Every declared variable must be given and only
 * declared ones may be: otherwise a 422 that names the variable.
 */
export function renderMessages(
  messages: readonly TemplateMessage[],
  declared: readonly string[],
  values: Readonly<Record<string, VariableValue>>,
  loc: (string | number)[] = ["body", "variables"],
): TemplateMessage[] {
  const known = new Set(declared);
  const extra = Object.keys(values).filter((n) => !known.has(n));
  if (extra.length > 0) {
    throw variableError(
      `undeclared variable ${extra.map((n) => `'${n}'`).join(", ")}: this version declares ` +
        (declared.length ? declared.map((n) => `'${n}'`).join(", ") : "no variables"),
      [...loc, extra[0] as string],
    );
  }
  const missing = declared.filter((n) => !Object.hasOwn(values, n));
  if (missing.length > 0) {
    throw variableError(`missing variable ${missing.map((n) => `'${n}'`).join(", ")}`, [
      ...loc,
      missing[0] as string,
    ]);
  }
  // A short template with many placeholders and long values must not blow up memory.
  let size = 0;
  for (const m of messages) {
    size += m.content.length;
    for (const match of m.content.matchAll(PLACEHOLDER)) {
      size += String(values[match[1] as string]).length;
      if (size > MAX_RENDERED_CHARS) {
        throw variableError(
          `the rendered prompt would exceed ${MAX_RENDERED_CHARS} characters`,
          loc,
        );
      }
    }
  }
  return messages.map((m) => ({
    ...m,
    content: m.content.replace(PLACEHOLDER, (_all, name: string) => String(values[name])),
  }));
}

function variableError(message: string, loc: (string | number)[]): GatewayError {
  return new GatewayError("validation_failed", message, {
    detail: [{ loc, msg: message, type: "prompt_variable" }],
  });
}
