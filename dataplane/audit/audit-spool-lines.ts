import type { PendingAuditRecord } from "../store/audit-repository.js";

/** One line read back: the record, or the raw text of a line that is not a record. */
export type SpooledLine = { record: PendingAuditRecord } | { unreadable: string };

function isRecord(value: unknown): value is PendingAuditRecord {
  if (typeof value !== "object" || value === null) return false;
  const { fields, content } = value as { fields?: unknown; content?: unknown };
  if (typeof fields !== "object" || fields === null || typeof content !== "object") return false;
  const f = fields as Record<string, unknown>;
  return (
    typeof f.id === "string" &&
    typeof f.customer_id === "string" &&
    typeof f.occurred_at === "string"
  );
}

/** The lines of the local audit log: records, and any line that is not one. */
export function parseLines(text: string): SpooledLine[] {
  const out: SpooledLine[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    out.push(isRecord(parsed) ? { record: parsed } : { unreadable: line });
  }
  return out;
}

/**
 * The records as lines of the local audit log (one JSON text and a newline each), written straight
 * into one buffer: the same bytes as Buffer.from of the joined text, without first joining the
 * texts into a string that would be copied whole once more before encoding.
 */
export function encodeLines(records: readonly PendingAuditRecord[]): Buffer {
  const texts = records.map((r) => JSON.stringify(r));
  let size = 0;
  for (const text of texts) size += Buffer.byteLength(text, "utf8") + 1;
  const data = Buffer.allocUnsafe(size);
  let at = 0;
  for (const text of texts) {
    at += data.write(text, at, "utf8");
    data[at++] = 10;
  }
  return data;
}
