const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_SPECIALS = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  "\t": "\\t",
  "\n": "\\n",
  "\r": "\\r",
};

/**
 * A value as one column of Postgres' COPY text format: backslash, tab, newline and carriage
 * return escaped, so a value can neither end its column or row nor read as `\N` (null) or `\.`
 * (end of data). Other characters are written as they are.
 */
export function copyText(value: string): string {
  return COPY_SPECIAL.test(value)
    ? value.replace(COPY_SPECIALS, (c) => COPY_ESCAPES[c] ?? c)
    : value;
}
