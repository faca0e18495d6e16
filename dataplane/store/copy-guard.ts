/**
 * A COPY's guard (Queryable.copyRows): a statement without parameters that runs just before the
 * COPY, in the same message and transaction, and raises this SQLSTATE when the rows must not go
 * in. Without parameters, its values are written into it as literals (sqlTextLiteral,
 * sqlIntegerLiteral).
 */
export const GUARD_REFUSED = "EV409";

/**
 * A string as an escape string literal (E'...': backslashes and quotes doubled), which reads the
 * same whatever the server's standard_conforming_strings: the guard now also runs on an
 * operator's Postgres server, whose settings are not ours.
 */
export function sqlTextLiteral(value: string): string {
  if (value.includes("\0")) throw new Error("a SQL text literal cannot hold a NUL character");
  return `E'${value.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`;
}

/** An integer as a SQL literal; anything but a safe integer is refused. */
export function sqlIntegerLiteral(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${String(value)}`);
  return String(value);
}
