import type { z } from "zod";
import { GatewayError, type ValidationIssue } from "../../core/errors.js";
import { checkInputText } from "./input-text-policy.js";

/**
 * Parses one part of a request; a failure is a 422 whose `detail` lists every problem. Every part
 * first passes the input text policy (no NUL, no unpaired surrogate, bounded depth).
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  location: "body" | "query" | "path",
): z.output<S> {
  checkInputText(value, location);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw validationError(result.error, location);
}

/** A zod error as our 422, with one `detail` item per issue. */
export function validationError(
  error: z.ZodError,
  location: "body" | "query" | "path",
): GatewayError {
  const detail: ValidationIssue[] = error.issues.map((issue) => ({
    loc: [location, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))],
    msg: issue.message,
    type: issue.code,
  }));
  const first = detail[0];
  const where = first ? first.loc.join(".") : location;
  const summary = first ? `${where}: ${first.msg}` : `invalid ${location}`;
  const more = detail.length > 1 ? ` (and ${detail.length - 1} more)` : "";
  return new GatewayError("validation_failed", `request validation failed: ${summary}${more}`, {
    detail,
  });
}
