/**
 * A store error as it crosses a worker thread's message port (a structured clone keeps an Error's
 * message but not its own fields or class), and back.
 */
export interface SerializedDbError {
  message: string;
  /** The class of a JavaScript error (RangeError, TypeError, SyntaxError, ...). */
  name?: string;
  /** SQLSTATE and the other fields Postgres reports, when the error came from the database. */
  fields: Record<string, string>;
}

/** Field names of a Postgres error that callers may read (pg's DatabaseError has the same). */
export const ERROR_FIELDS = [
  "code",
  "detail",
  "hint",
  "constraint",
  "table",
  "column",
  "schema",
  "severity",
] as const;

export function serializeDbError(err: unknown): SerializedDbError {
  const fields: Record<string, string> = {};
  if (err !== null && typeof err === "object") {
    for (const name of ERROR_FIELDS) {
      const value = (err as Record<string, unknown>)[name];
      if (typeof value === "string") fields[name] = value;
    }
  }
  if (!(err instanceof Error)) return { message: String(err), fields };
  return { message: err.message, name: err.name, fields };
}

/** Classes kept across the port: callers tell a refused value from a lost store by them. */
const CLASSES: Record<string, new (message: string) => Error> = {
  RangeError,
  TypeError,
  SyntaxError,
};

export function dbErrorFrom(error: SerializedDbError): Error {
  const Class = (error.name !== undefined && CLASSES[error.name]) || Error;
  return Object.assign(new Class(error.message), error.fields);
}
