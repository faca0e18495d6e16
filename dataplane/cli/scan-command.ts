/**
 * `evident scan`: JSON lines {"id", "text"} on stdin -> one JSON line per input on stdout with every
 * detector's verdict, the scores and the PII spans. A bad line yields an error line for that input
 * (with its id when one could be read, and its line number), never a crash.
 */
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { scanText, type ScanOptions } from "./scan-text.js";

export interface ScanInputError {
  id: string | number | null;
  line: number;
  error: string;
}

/** One output line for one input line (without the trailing newline). */
export function scanLine(raw: string, lineNumber: number, options: ScanOptions = {}): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return JSON.stringify({
      id: null,
      line: lineNumber,
      error: "invalid JSON",
    } satisfies ScanInputError);
  }
  const obj =
    typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  const rawId = obj?.["id"];
  const id = typeof rawId === "string" || typeof rawId === "number" ? rawId : null;
  if (obj === undefined)
    return JSON.stringify({
      id,
      line: lineNumber,
      error: "expected a JSON object",
    } satisfies ScanInputError);
  if (id === null)
    return JSON.stringify({
      id,
      line: lineNumber,
      error: "missing id (string or number)",
    } satisfies ScanInputError);
  if (typeof obj["text"] !== "string")
    return JSON.stringify({
      id,
      line: lineNumber,
      error: "missing text (string)",
    } satisfies ScanInputError);
  return JSON.stringify({ id, ...scanText(obj["text"], options) });
}

export async function runScan(
  input: Readable,
  output: Writable,
  options: ScanOptions = {},
): Promise<number> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  let errors = 0;
  for await (const raw of lines) {
    n++;
    if (raw.trim() === "") continue;
    const out = scanLine(raw, n, options);
    if (out.includes('"error":')) errors++;
    if (!output.write(out + "\n")) await new Promise((done) => output.once("drain", done));
  }
  return errors;
}
