import { z } from "zod";

/** A wire-level identifier in a path: bounded, printable, no slashes. */
export const idParam = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, "malformed id");

/**
 * An ISO 8601 date-time with an offset, as every date input: only instants the store keeps exactly
 * (years 0100 to 9999 in UTC, at most millisecond precision) are accepted; anything else is a 422,
 * never silently shifted (the embedded store reads years before 100 as 19xx/20xx).
 */
export const isoDateTime = z
  .string()
  .pipe(z.iso.datetime({ offset: true }))
  .refine((s) => !/\.\d{4,}/.test(s), "at most millisecond precision is kept")
  .refine((s) => {
    const year = new Date(s).getUTCFullYear();
    return year >= 100 && year <= 9999;
  }, "must be between 0100-01-01 and 9999-12-31 (UTC)")
  .meta({ format: "date-time" });

export const pageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000_000).default(0),
});

/** A human-facing name: bounded, no control characters. */
export const displayName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .refine((s) => ![...s].some(isControlCharacter), "must not contain control characters");

/** One problem in a 422 (FastAPI's ValidationError item). */
export const validationIssueSchema = z
  .object({
    loc: z.array(z.union([z.string(), z.number()])),
    msg: z.string(),
    type: z.string(),
  })
  .meta({ id: "ValidationError" });

/** Every error body: `{"error": {"message", "type", "code"}}`, with X-Request-ID. */
export const errorSchema = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string(),
      code: z.string(),
      detail: z.array(validationIssueSchema).optional(),
    }),
  })
  .meta({ id: "ErrorResponse" });

/** The 422 body (the spec's HTTPValidationError): the envelope with one `detail` item per issue. */
export const httpValidationErrorSchema = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.literal("validation_error"),
      code: z.literal("validation_failed"),
      detail: z.array(validationIssueSchema),
    }),
  })
  .meta({ id: "HTTPValidationError" });

export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ object: z.literal("list"), data: z.array(item), has_more: z.boolean() });
}

/** Wraps a page of rows (fetched with limit + 1) in the list shape. */
export function listBody<T>(
  rows: T[],
  limit: number,
): { object: "list"; data: T[]; has_more: boolean } {
  return { object: "list", data: rows.slice(0, limit), has_more: rows.length > limit };
}

function isControlCharacter(ch: string): boolean {
  const code = ch.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f;
}
